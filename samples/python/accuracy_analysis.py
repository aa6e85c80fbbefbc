"""An accuracy-analysis session as rknn-toolkit2 users run it, on svp-acl's rknn.api
(docs/python.md, "accuracy_analysis").

    python3 accuracy_analysis.py <onnx_model> <dataset.txt> <input.npy> [platform] [snapshot_dir]

Builds the int8 model calibrated on the dataset list, analyses it layer by layer on the
input (error_analysis.txt and the golden/ and simulator/ outputs in snapshot_dir) and
prints the layers whose own (single) cosine is lowest.
"""
import sys

from rknn.api import RKNN


def main(argv):
    if len(argv) < 4:
        print("Usage: python3 {} onnx_model dataset.txt input.npy [platform] [snapshot_dir]".format(argv[0]))
        return 1
    model, dataset, inp = argv[1:4]
    platform = argv[4] if len(argv) > 4 else "rk3588"
    snapshot = argv[5] if len(argv) > 5 else "./snapshot"
    rknn = RKNN()
    if rknn.config(target_platform=platform) != 0 or rknn.load_onnx(model=model) != 0:
        return 2
    if rknn.build(do_quantization=True, dataset=dataset) != 0:
        return 2
    if rknn.accuracy_analysis(inputs=[inp], output_dir=snapshot) != 0:
        return 2
    quantized = [r for r in rknn.accuracy_report if r["single_cos"] is not None]
    print("worst layers alone (single cosine), of {} analysed; details in {}/error_analysis.txt".format(
        len(rknn.accuracy_report), snapshot))
    for r in sorted(quantized, key=lambda r: r["single_cos"])[:3]:
        print("  {:<24} {:<10} single {:.5f}  entire {:.5f}".format(r["layer"], r["op"], r["single_cos"],
                                                                   r["entire_cos"]))
    rknn.release()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/bin/sh
# svp_run end to end on the committed Fashion-MNIST LeNet, as a user runs it: svp_atc
# compiles the ONNX file (float, and int8 calibrated on 32 training images), svp_run
# executes the first N test images on 4 streams with NPY outputs, and the top-1 accuracy
# against the dataset's labels must reach its floor (PyTorch float on these 1,000 images:
# 88.2 %, onnxruntime the same).
#   fashion_mnist_svp_run.sh SVP_ATC SVP_RUN SOURCE_DIR WORK_DIR N FLOAT_FLOOR INT8_FLOOR
set -eu
atc=$1 run=$2 src=$3 work=$4 n=$5 float_floor=$6 int8_floor=$7
dataset=/usr/share/datasets/fashion-mnist
if [ ! -f "$dataset/t10k-images-idx3-ubyte.gz" ]; then
  echo "Fashion-MNIST not installed ($dataset; scripts/deps.sh installs dataset-fashion-mnist)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
python3 "$src/scripts/models/fashion_inputs.py" "$work/images" "$n"
python3 "$src/scripts/models/fashion_calibration.py" "$work/calibration.txt" 32
"$atc" --model="$src/models/lenet_fashion_mnist.onnx" --framework=5 --output="$work/lenet" \
       --soc_version=Hi3516CV610 --compile_mode=float --log_level=3
"$atc" --model="$src/models/lenet_fashion_mnist.onnx" --framework=5 --output="$work/lenet_int8" \
       --soc_version=Hi3516CV610 --image_list="image:$work/calibration.txt" --log_level=3
for m in lenet:$float_floor lenet_int8:$int8_floor; do
  name=${m%%:*} floor=${m#*:}
  "$run" --model "$work/$name.om" --input "$work/images" --output "$work/out" --output_dirname "$name" \
         --outfmt NPY --streams 4 --threads 2
  echo "$name:"
  python3 "$src/scripts/models/fashion_accuracy.py" "$work/out/$name" "$work/images" "$floor"
done

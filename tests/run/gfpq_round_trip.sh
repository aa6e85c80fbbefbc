#!/bin/sh
# --gfpq_param_file end to end on the committed Fashion-MNIST LeNet: svp_atc writes
# <model>_calibration_param.txt beside every int8 model; compiling again with that file and
# other calibration data reproduces every layer's encodings (the written files are equal),
# where the other data alone gives other encodings; a layer the file marks F32 stays float.
#   gfpq_round_trip.sh SVP_ATC SOURCE_DIR WORK_DIR
set -eu
atc=$1 src=$2 work=$3
dataset=/usr/share/datasets/fashion-mnist
if [ ! -f "$dataset/train-images-idx3-ubyte.gz" ]; then
  echo "Fashion-MNIST not installed ($dataset; scripts/deps.sh installs dataset-fashion-mnist)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
python3 "$src/scripts/models/fashion_calibration.py" "$work/cal32.txt" 32
python3 "$src/scripts/models/fashion_calibration.py" "$work/cal2.txt" 2
compile() {  # OUTPUT LIST [more flags]
  out=$1 list=$2
  shift 2
  "$atc" --model="$src/models/lenet_fashion_mnist.onnx" --framework=5 --output="$work/$out" \
         --soc_version=Hi3516CV610 --image_list="image:$work/$list" --log_level=3 "$@"
}
compile first cal32.txt
test -s "$work/first_calibration_param.txt"
grep -q 'calc_data_type: S8' "$work/first_calibration_param.txt"
compile other cal2.txt
if cmp -s "$work/first_calibration_param.txt" "$work/other_calibration_param.txt"; then
  echo "two images calibrate like 32: the round trip below would prove nothing"
  exit 1
fi
compile again cal2.txt --gfpq_param_file="$work/first_calibration_param.txt"
cmp "$work/first_calibration_param.txt" "$work/again_calibration_param.txt"
# The first convolution kept float by the file: its layer is written back as F32.
first_conv=$(sed -n 's/^  name: "\(.*Conv.*\)"$/\1/p' "$work/first_calibration_param.txt" | head -n 1)
printf 'layer {\n  name: "%s"\n  calc_data_type: F32\n  quant_param {\n  }\n}\n' "$first_conv" > "$work/float_conv.txt"
compile float_conv cal2.txt --gfpq_param_file="$work/float_conv.txt"
grep -A1 "name: \"$first_conv\"" "$work/float_conv_calibration_param.txt" | grep -q 'calc_data_type: F32'
# A file naming a layer the model lacks fails, naming it.
printf 'layer { name: "no_such_layer" quant_param { } }\n' > "$work/bad.txt"
if compile bad cal2.txt --gfpq_param_file="$work/bad.txt" 2> "$work/bad.log"; then
  echo "an unknown layer was accepted"
  exit 1
fi
grep -q 'no_such_layer' "$work/bad.log"
echo "gfpq round trip: $(grep -c '^layer' "$work/first_calibration_param.txt") layers reproduced; $first_conv kept float"

# Sourced by bench/ncnn.sh, bench/ncnn-layers.sh, bench/ncnn-shapes.sh and bench/arm-insn-peers.sh (from the
# repository root): the models mdfi is compared with ncnn on, and the settings they share:
# SHARED (../shared), PEER (../shared/peers/ncnn), WORK (scratch dir, made absolute here) and
# MDFI (host binary, for gen-weights), each as the caller's environment sets it or by default.
# ncnn_model NAME sets: cfg weights param bin cmd (detect|classify) size (WxH).
MDFI=${MDFI:-build/app/mdfi}
SHARED=${SHARED:-../shared}
PEER=${PEER:-$SHARED/peers/ncnn}
WORK=${WORK:-build/ncnn-bench}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
PEER_MODELS_ALL="yolo-fastest-1.1 yolo-fastest-1.1-xl mobilenetv2-yolov3-nano tiny-darknet yolov3-tiny yolov3 yolov4-tiny"

# The median of the numbers on stdin, one per line.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Unpacks ncnn's x86-64 package into $WORK/ncnn (never into the repository).
ncnn_unpack() {
  [ -f "$WORK/ncnn/lib/libncnn.a" ] && return 0
  mkdir -p "$WORK/ncnn" && tar xzf "$PEER/ncnn-x86_64-install.tgz" -C "$WORK/ncnn"
}

# Builds bench/ncnn/ncnn_bench.cpp against the unpacked ncnn (when missing or older than its
# source) and prints its path.
ncnn_bench_built() {
  ncnn_unpack
  local exe="$WORK/ncnn_bench"
  if [ ! -x "$exe" ] || [ bench/ncnn/ncnn_bench.cpp -nt "$exe" ]; then
    g++ -O2 -fopenmp -I"$WORK/ncnn/include/ncnn" bench/ncnn/ncnn_bench.cpp "$WORK/ncnn/lib/libncnn.a" -lpthread -o "$exe"
  fi
  echo "$exe"
}

ncnn_model() {
  local M="$SHARED/models" N="$PEER/models"
  cmd=detect
  case "$1" in
    yolo-fastest-1.1) cfg=$M/yolo-fastest-1.1-coco/yolo-fastest-1.1.cfg; weights=${cfg%.cfg}.weights; param=$N/yolo-fastest-1.1.param ;;
    yolo-fastest-1.1-xl) cfg=$M/yolo-fastest-1.1-xl-coco/yolo-fastest-1.1-xl.cfg; weights=${cfg%.cfg}.weights; param=$N/yolo-fastest-1.1-xl.param ;;
    mobilenetv2-yolov3-nano) cfg=$M/mobilenetv2-yolov3-nano-coco/MobileNetV2-YOLOv3-Nano-coco.cfg; weights=${cfg%.cfg}.weights; param=$N/mobilenetv2-yolov3-nano.param ;;
    tiny-darknet) cfg=$M/tiny-darknet-imagenet/tiny.cfg; weights=$M/tiny-darknet-imagenet/tiny.weights; param=$N/tiny-darknet-fixed.param; cmd=classify ;;
    yolov3-tiny | yolov3) cfg=$PWD/cfg/$1.cfg; weights=$WORK/$1.weights; param=$WORK/$1.param ;;
    yolov4-tiny) cfg=$SHARED/refs/cfg/yolov4-tiny.cfg; weights=$WORK/$1.weights; param=$WORK/$1.param ;;
    *) echo "unknown model $1 (known: $PEER_MODELS_ALL)" >&2; return 2 ;;
  esac
  bin=${param%.param}.bin
  size=$(awk -F= '/^[ \t]*width/ {w=$2} /^[ \t]*height/ {h=$2} END {gsub(/[ \t\r]/, "", w); gsub(/[ \t\r]/, "", h); print w "x" h}' "$cfg")
  [ -f "$weights" ] || "$MDFI" -q gen-weights -c "$cfg" -o "$weights"
  if [ ! -f "$param" ]; then
    ncnn_unpack
    "$WORK/ncnn/bin/darknet2ncnn" "$cfg" "$weights" "$param" "$bin" 1 >"$WORK/convert.log" 2>&1 ||
      { echo "darknet2ncnn failed on $cfg (see $WORK/convert.log)" >&2; return 1; }
  fi
}

#!/usr/bin/env bash
# The README's main job: a real YOLOv3 detection on Darknet's sample image. Official weights
# need the internet (scripts/get-weights.sh); without it this says so plainly, shows what YOLOv3
# would need with `mdfi plan`, and runs a real detection with a small pretrained model from
# ../shared/models when that folder is present.
set -uo pipefail
cd "$(dirname "$0")/.."
MDFI=build/app/mdfi
IMAGE=/usr/share/darknet/data/dog.jpg
if scripts/get-weights.sh yolov3 >/dev/null 2>&1; then
  echo "== mdfi detect --net yolov3 $IMAGE"
  "$MDFI" detect --net yolov3 "$IMAGE"
  exit $?
fi
echo "== No internet here: the official yolov3.weights (248 MB) cannot be downloaded."
echo "== What a YOLOv3-416 run needs, predicted without weights or images (mdfi plan --net yolov3):"
"$MDFI" plan --net yolov3 | tail -2
SHARED=../shared/models/yolo-fastest-1.1-xl-coco
if [ -f "$SHARED/yolo-fastest-1.1-xl.weights" ]; then
  echo "== A real detection with pretrained Yolo-Fastest-1.1-XL weights from ../shared/models:"
  "$MDFI" detect --net yolo-fastest-1.1-xl -w "$SHARED/yolo-fastest-1.1-xl.weights" "$IMAGE"
fi

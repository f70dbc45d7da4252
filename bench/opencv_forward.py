#!/usr/bin/env python3
"""OpenCV DNN reference timing for bench/speed.sh: readNetFromDarknet, blobFromImage, forward.
Prints one line: the median warm forward time in milliseconds over REPEAT runs (after a warm-up).
usage: opencv_forward.py CFG WEIGHTS IMAGE WIDTH HEIGHT THREADS REPEAT"""
import sys
import time

import cv2

cfg, weights, image, w, h, threads, repeat = sys.argv[1:8]
cv2.setNumThreads(int(threads))
net = cv2.dnn.readNetFromDarknet(cfg, weights)
net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
img = cv2.imread(image)
blob = cv2.dnn.blobFromImage(img, 1 / 255.0, (int(w), int(h)), swapRB=True, crop=False)
outs = net.getUnconnectedOutLayersNames()
net.setInput(blob)
net.forward(outs)  # warm-up: OpenCV initialises its layers lazily
times = []
for _ in range(int(repeat)):
    net.setInput(blob)
    t0 = time.perf_counter()
    net.forward(outs)
    times.append((time.perf_counter() - t0) * 1000)
times.sort()
print("%.2f" % times[len(times) // 2])

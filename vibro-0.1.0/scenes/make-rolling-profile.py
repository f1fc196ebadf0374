#!/usr/bin/env python3
"""Write scenes/rolling-profile.txt: the surface profile of the rolling scene.

A periodic strip of rough surface, deterministic (Python's own Mersenne
Twister, seed 2385, standard library only): 4000 uniform random numbers in
[-1, 1], smoothed circularly by a Gaussian kernel of standard deviation 8
samples, shifted to start at height 0 and scaled to an rms of 2 um.  At the
scene's spacing of 50 um this is 20 cm of surface with bumps about 1 mm
apart.  Usage: python3 scenes/make-rolling-profile.py > scenes/rolling-profile.txt
"""
import math
import random

N, SEED, SIGMA, RMS = 4000, 2385, 8.0, 2.0e-6

rng = random.Random(SEED)
noise = [rng.uniform(-1.0, 1.0) for _ in range(N)]
half = int(4 * SIGMA)
kernel = [math.exp(-0.5 * (j / SIGMA) ** 2) for j in range(-half, half + 1)]
smooth = [sum(kernel[j + half] * noise[(i + j) % N] for j in range(-half, half + 1))
          for i in range(N)]
mean = sum(smooth) / N
rms = math.sqrt(sum((s - mean) ** 2 for s in smooth) / N)
height = [(s - smooth[0]) * RMS / rms for s in smooth]
print("# rolling-profile.txt: surface heights for scenes/rolling-ball.cfg, m,")
print("# one per line, spacing 50 um (%d samples, periodic)." % N)
print("# Made by scenes/make-rolling-profile.py (seed %d, Gaussian smoothing" % SEED)
print("# sigma %g samples, rms %g m); do not edit by hand." % (SIGMA, RMS))
for h in height:
    print("%.6e" % h)

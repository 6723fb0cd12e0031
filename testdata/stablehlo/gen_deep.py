#!/usr/bin/python3
"""Writes StableHLO text nested 100,000 deep (for err_deep_*.hlo): regions,
attribute arrays, dense lists or tuple types, by the argument."""
import sys

N = 100000
kind = sys.argv[1]
head = "module @deep {\n  func.func public @main(%arg0: tensor<f32>) -> tensor<f32> {\n"
if kind == "regions":
    body = '    %0 = "stablehlo.case"(%c) ({\n' * N
elif kind == "attributes":
    body = "    %0 = stablehlo.custom_call @f(%arg0) {x = " + "[" * N + "\n"
elif kind == "dense":
    body = "    %0 = stablehlo.constant dense<" + "[" * N + "\n"
else:
    body = "    %0 = stablehlo.negate %arg0 : (" + "tuple<" * N + "\n"
sys.stdout.write(head + body)

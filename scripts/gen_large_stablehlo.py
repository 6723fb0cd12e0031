#!/usr/bin/python3
"""Writes a large StableHLO module as JAX prints it (for scripts/bench-parse):
one public @main over a chain of elementwise ops, broadcasts, dot_generals,
compares and selects, reductions with regions, constants and calls of a
private function, about 100 bytes per op.

  scripts/gen_large_stablehlo.py --ops N [-o FILE]
"""
import argparse
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--ops", type=int, required=True)
ap.add_argument("-o", default="-")
a = ap.parse_args()
out = sys.stdout if a.o == "-" else open(a.o, "w")
T = "tensor<16x32xf32>"
w = out.write
w('module @jit_large attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n')
w(f'  func.func public @main(%arg0: {T}, %arg1: tensor<32x32xf32>) -> ({T} {{jax.result_info = "result"}}) {{\n')
w('    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>\n')
w(f'    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> {T}\n')
w(f'    %1 = stablehlo.add %arg0, %0 : {T}\n')
n, cur = 2, 1
while n < a.ops:
    k = n % 8
    if k == 0:
        w(f'    %{n} = stablehlo.dot_general %{cur}, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : ({T}, tensor<32x32xf32>) -> {T}\n')
    elif k == 1:
        w(f'    %{n} = stablehlo.multiply %{cur}, %0 : {T}\n')
    elif k == 2:
        w(f'    %{n} = stablehlo.tanh %{cur} : {T}\n')
    elif k == 3:
        w(f'    %cst_{n} = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n')
        w(f'    %{n} = stablehlo.reduce(%{cur} init: %cst_{n}) applies stablehlo.add across dimensions = [1] : ({T}, tensor<f32>) -> tensor<16xf32>\n')
        n += 1
        w(f'    %{n} = stablehlo.broadcast_in_dim %{n - 1}, dims = [0] : (tensor<16xf32>) -> {T}\n')
    elif k == 4:
        w(f'    %{n} = stablehlo.compare  GT, %{cur}, %0,  FLOAT : ({T}, {T}) -> tensor<16x32xi1>\n')
        n += 1
        w(f'    %{n} = stablehlo.select %{n - 1}, %{cur}, %0 : tensor<16x32xi1>, {T}\n')
    elif k == 5:
        w(f'    %{n} = call @relu(%{cur}) : ({T}) -> {T}\n')
    elif k == 6:
        w(f'    %{n} = stablehlo.subtract %{cur}, %arg0 : {T}\n')
    else:
        w(f'    %{n} = stablehlo.maximum %{cur}, %1 : {T}\n')
    cur = n
    n += 1
w(f'    return %{cur} : {T}\n  }}\n')
w(f'  func.func private @relu(%arg0: {T}) -> {T} {{\n')
w('    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n')
w(f'    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> {T}\n')
w(f'    %1 = stablehlo.maximum %arg0, %0 : {T}\n')
w(f'    return %1 : {T}\n  }}\n}}\n')

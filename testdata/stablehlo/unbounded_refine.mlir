// RUN: hlo-run %s --input "f32[2,4] {{0, 1, 2, 3}, {4, 5, 6, 7}}" --output-format=json | hlo-check %s --check-prefix=TWO
// RUN: hlo-run %s --input "f32[3,4] {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}" --output-format=json | hlo-check %s --check-prefix=THREE
// RUN: hlo-opt %s --refine-shapes="f32[2,4]" | hlo-check %s --check-prefix=OPT
// RUN: hlo-run %s --refine-shapes="f32[5,4]" --random-inputs --output-format=json | hlo-check %s --check-prefix=RANDOM
// A shape-polymorphic export as jax.export writes it (args[0].shape = (b, 4),
// the dimension variable passed to the wrapped function as a
// jax.global_constant) runs refined for the shape of its input, as JAX
// refines it before XLA compiles it. For x = arange(4b).reshape(b, 4) (numpy):
//   result 0 = 2 * x.reshape(4b)[1::2]   (dynamic_reshape, real_dynamic_slice,
//              and @double called on b*2 elements ...)
//   result 1 = 2 * x.sum(1)[:, None] + arange(b)[:, None] + [1, 2, 3, 4]
//              (... and on b: two refined copies; dynamic_broadcast_in_dim
//              of b sums and of a 1x4 constant whose dimension of size 1
//              grows; dynamic_iota)
// b = 2: [2, 6, 10, 14] and [[13, 14, 15, 16], [46, 47, 48, 49]];
// b = 3: [2, 6, 10, 14, 18, 22] and the rows above plus [79, 80, 81, 82].
// --refine-shapes gives the shape instead, for random inputs (b = 5).
module @jit_f attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x4xf32>) -> (tensor<?xf32> {jax.result_info = "[0]"}, tensor<?x4xf32> {jax.result_info = "[1]"}) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %2 = stablehlo.compare  GE, %1, %c,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %1) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Obtained dimension variables: 'b' = {0}.", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
    %3:2 = call @_wrapped_jax_export_main(%1, %arg0) : (tensor<i64>, tensor<?x4xf32>) -> (tensor<?xf32>, tensor<?x4xf32>)
    return %3#0, %3#1 : tensor<?xf32>, tensor<?x4xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i64> {jax.global_constant = "b"}, %arg1: tensor<?x4xf32>) -> (tensor<?xf32>, tensor<?x4xf32>) {
    %c = stablehlo.constant dense<4> : tensor<i64>
    %0 = stablehlo.multiply %arg0, %c : tensor<i64>
    %1 = stablehlo.reshape %0 : (tensor<i64>) -> tensor<1xi64>
    %2 = stablehlo.dynamic_reshape %arg1, %1 : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<?xf32>
    %c_0 = stablehlo.constant dense<1> : tensor<1xi64>
    %c_1 = stablehlo.constant dense<2> : tensor<1xi64>
    %3 = stablehlo.real_dynamic_slice %2, %c_0, %1, %c_1 : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
    %4 = call @double(%3) : (tensor<?xf32>) -> tensor<?xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
    %6 = call @double(%5) : (tensor<?xf32>) -> tensor<?xf32>
    %7 = stablehlo.reshape %arg0 : (tensor<i64>) -> tensor<1xi64>
    %c_2 = stablehlo.constant dense<4> : tensor<1xi64>
    %8 = stablehlo.concatenate %7, %c_2, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %9 = stablehlo.dynamic_broadcast_in_dim %6, %8, dims = [0] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x4xf32>
    %10 = stablehlo.dynamic_iota %8, dim = 0 : (tensor<2xi64>) -> tensor<?x4xf32>
    %cst_3 = stablehlo.constant dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]> : tensor<1x4xf32>
    %11 = stablehlo.dynamic_broadcast_in_dim %cst_3, %8, dims = [0, 1] : (tensor<1x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
    %12 = stablehlo.add %9, %10 : tensor<?x4xf32>
    %13 = stablehlo.add %12, %11 : tensor<?x4xf32>
    return %4, %13 : tensor<?xf32>, tensor<?x4xf32>
  }
  func.func private @double(%arg0: tensor<?xf32>) -> tensor<?xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<?xf32>
    return %0 : tensor<?xf32>
  }
}

// TWO: {"shape": "(f32[4]{0}, f32[2,4]{1,0})", "elements": [{"shape": "f32[4]{0}", "dtype": "f32", "dims": [4], "data": [2.0, 6.0, 10.0, 14.0]}, {"shape": "f32[2,4]{1,0}", "dtype": "f32", "dims": [2, 4], "data": [13.0, 14.0, 15.0, 16.0, 46.0, 47.0, 48.0, 49.0]}]}

// THREE: "data": [2.0, 6.0, 10.0, 14.0, 18.0, 22.0]}, {"shape": "f32[3,4]{1,0}", "dtype": "f32", "dims": [3, 4], "data": [13.0, 14.0, 15.0, 16.0, 46.0, 47.0, 48.0, 49.0, 79.0, 80.0, 81.0, 82.0]}

// RANDOM: {"shape": "(f32[10]{0}, f32[5,4]{1,0})"

// The refined module: static shapes, the dynamic ops' static forms, the
// assertion checked and gone, @double copied for each of its two shapes.
// OPT: HloModule jit_f, entry_computation_layout={(f32[2,4]{1,0})->(f32[4]{0}, f32[2,4]{1,0})}
// OPT-NOT: custom-call
// OPT: double.{{[0-9]+}} {
// OPT-NEXT: Arg_0.{{[0-9]+}} = f32[4]{0} parameter(0)
// OPT: double.{{[0-9]+}} {
// OPT-NEXT: Arg_0.{{[0-9]+}} = f32[2]{0} parameter(0)
// OPT: reshape.{{[0-9]+}} = f32[8]{0} reshape(Arg_1.{{[0-9]+}})
// OPT-NEXT: slice.{{[0-9]+}} = f32[4]{0} slice(reshape.{{[0-9]+}}), slice={[1:8:2]}
// OPT: broadcast.{{[0-9]+}} = f32[2,4]{1,0} broadcast(call.{{[0-9]+}}), dimensions={0}
// OPT-NEXT: iota.{{[0-9]+}} = f32[2,4]{1,0} iota(), iota_dimension=0
// OPT: reshape.{{[0-9]+}} = f32[4]{0} reshape(constant.{{[0-9]+}})
// OPT-NEXT: broadcast.{{[0-9]+}} = f32[2,4]{1,0} broadcast(reshape.{{[0-9]+}}), dimensions={1}
// OPT: ENTRY main {
// OPT-NEXT: Arg_0.1 = f32[2,4]{1,0} parameter(0)
// OPT-NEXT: convert.3 = s64[] constant(2)
// OPT-NOT: custom-call

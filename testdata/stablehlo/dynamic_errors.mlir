// RUN-ERROR: hlo-opt %s
// A bound belongs to a dynamic dimension, a constant has a static shape,
// and tensor encodings other than bounds are not read.
func.func @unbounded_constant() -> tensor<?xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @bound_on_static(%arg0: tensor<4x?xf32, #stablehlo.bounds<3, 4>>) -> tensor<4x?xf32, #stablehlo.bounds<3, 4>> {
  return %arg0 : tensor<4x?xf32, #stablehlo.bounds<3, 4>>
}

// -----

func.func @sparse(%arg0: tensor<4xf32, #sparse>) -> tensor<4xf32, #sparse> {
  return %arg0 : tensor<4xf32, #sparse>
}

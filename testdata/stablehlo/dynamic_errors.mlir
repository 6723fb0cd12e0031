// RUN-ERROR: hlo-opt %s
// Dynamic dimensions need bounds (unbounded shapes need shape refinement,
// which hlo does not do), and a bound belongs to a dynamic dimension.
func.func @unbounded(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  return %arg0 : tensor<?xf32>
}

// -----

func.func @bound_on_static(%arg0: tensor<4x?xf32, #stablehlo.bounds<3, 4>>) -> tensor<4x?xf32, #stablehlo.bounds<3, 4>> {
  return %arg0 : tensor<4x?xf32, #stablehlo.bounds<3, 4>>
}

// -----

func.func @missing_bound(%arg0: tensor<4x?xf32, #stablehlo.bounds<?, ?>>) -> tensor<4x?xf32, #stablehlo.bounds<?, ?>> {
  return %arg0 : tensor<4x?xf32, #stablehlo.bounds<?, ?>>
}

// -----

func.func @sparse(%arg0: tensor<4xf32, #sparse>) -> tensor<4xf32, #sparse> {
  return %arg0 : tensor<4xf32, #sparse>
}

// RUN-ERROR: hlo-run %s
// A StableHLO file split by `// -----` (mlir-opt's -split-input-file): each
// module runs in turn and prints its result after a `// -----` line; an error
// in one is reported at its place in the whole file, and the others still run.
func.func @first() -> tensor<2xi32> {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  func.return %1 : tensor<2xi32>
}

// -----

func.func @syntax_error() -> tensor<i32> {
  %0 = stablehlo.constant dense<1> : tensor<i32>
  %1 = stablehlo.add %0 %0 : tensor<i32>
  func.return %1 : tensor<i32>
}

// -----

// Only comments: not a module.

// -----

// Each module runs without inputs.
func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  func.return %arg0 : tensor<f32>
}

// -----

module @last {
  func.func public @main() -> (tensor<f32>, tensor<i1>) {
    %0 = stablehlo.constant dense<2.5> : tensor<f32>
    %1 = stablehlo.constant dense<true> : tensor<i1>
    func.return %0, %1 : tensor<f32>, tensor<i1>
  }
}

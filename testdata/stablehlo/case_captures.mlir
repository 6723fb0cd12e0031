// RUN: hlo-run %s
// case and if whose branches use values from outside (implicit captures, as
// JAX writes lax.cond/switch): each branch gets them as its tuple parameter.
// Index 1 picks x + y = {5, 7, 9}; index 5 is out of range, which picks the
// last branch (the spec's and HLO's rule): y = {4, 5, 6}; the if's true
// branch gives -x = {-1, -2, -3}.
module @cond {
  func.func public @main() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %y = stablehlo.constant dense<[4.0, 5.0, 6.0]> : tensor<3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %five = stablehlo.constant dense<5> : tensor<i32>
    %t = stablehlo.constant dense<true> : tensor<i1>
    %0 = "stablehlo.case"(%one) ({
      %n = stablehlo.negate %x : tensor<3xf32>
      stablehlo.return %n : tensor<3xf32>
    }, {
      %s = stablehlo.add %x, %y : tensor<3xf32>
      stablehlo.return %s : tensor<3xf32>
    }, {
      stablehlo.return %y : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    %1 = "stablehlo.case"(%five) ({
      %n = stablehlo.negate %x : tensor<3xf32>
      stablehlo.return %n : tensor<3xf32>
    }, {
      stablehlo.return %y : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    %2 = "stablehlo.if"(%t) ({
      %n = stablehlo.negate %x : tensor<3xf32>
      stablehlo.return %n : tensor<3xf32>
    }, {
      stablehlo.return %x : tensor<3xf32>
    }) : (tensor<i1>) -> tensor<3xf32>
    return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}

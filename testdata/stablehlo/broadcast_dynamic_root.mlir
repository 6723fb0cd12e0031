// RUN: hlo-run %s
// collective_broadcast with has_dynamic_root (the spec: result j's source is
// process_groups[i, roots[j]], an index into the group's order): groups
// [1, 0] and [3, 2] of four replicas, roots [0, 1]. Result 0 comes from the
// first of each group (replicas 1 and 3), result 1 from the second (0 and 2).
module @dynamic_root {
  func.func @f(%a: tensor<2xi32>, %b: tensor<i32>, %root: tensor<2xi32>) -> (tensor<2xi32>, tensor<i32>) {
    %r:2 = "stablehlo.collective_broadcast"(%a, %b, %root) {
      replica_groups = dense<[[1, 0], [3, 2]]> : tensor<2x2xi64>, has_dynamic_root
    } : (tensor<2xi32>, tensor<i32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<i32>)
    func.return %r#0, %r#1 : tensor<2xi32>, tensor<i32>
  }
  func.func @main() {
    %a0 = stablehlo.constant dense<[0, 0]> : tensor<2xi32>
    %a1 = stablehlo.constant dense<[1, 1]> : tensor<2xi32>
    %a2 = stablehlo.constant dense<[2, 2]> : tensor<2xi32>
    %a3 = stablehlo.constant dense<[3, 3]> : tensor<2xi32>
    %b0 = stablehlo.constant dense<10> : tensor<i32>
    %b1 = stablehlo.constant dense<11> : tensor<i32>
    %b2 = stablehlo.constant dense<12> : tensor<i32>
    %b3 = stablehlo.constant dense<13> : tensor<i32>
    %root = stablehlo.constant dense<[0, 1]> : tensor<2xi32>
    %r:8 = "interpreter.run_parallel"(%a0, %b0, %root, %a1, %b1, %root, %a2, %b2, %root,
                                      %a3, %b3, %root) {programs = [[@f], [@f], [@f], [@f]]}
        : (tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<2xi32>, tensor<i32>, tensor<2xi32>,
           tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<2xi32>, tensor<i32>, tensor<2xi32>)
        -> (tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<i32>,
            tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<i32>)
    check.expect_eq_const %r#0, dense<[1, 1]> : tensor<2xi32>
    check.expect_eq_const %r#1, dense<10> : tensor<i32>
    check.expect_eq_const %r#2, dense<[1, 1]> : tensor<2xi32>
    check.expect_eq_const %r#3, dense<10> : tensor<i32>
    check.expect_eq_const %r#4, dense<[3, 3]> : tensor<2xi32>
    check.expect_eq_const %r#5, dense<12> : tensor<i32>
    check.expect_eq_const %r#6, dense<[3, 3]> : tensor<2xi32>
    check.expect_eq_const %r#7, dense<12> : tensor<i32>
    func.return
  }
}

// RUN-ERROR: hlo-run %s
// interpreter.run_parallel, as StableHLO's interpreter tests run collectives:
// a grid of 2 replicas x 2 partitions, process (r, p) taking operand
// 2r + p. A cross-replica all_reduce sums over the replicas of each
// partition: 1 + 100 for partition 0, 10 + 1000 for partition 1 (the
// spec's cross_replica mode). A check of one process's result runs on
// that device only; the second split's check of process (1, 0) fails there.
module @grid {
  func.func @sum(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<ui32>) {
    %0 = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %s = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
    %1 = stablehlo.partition_id : tensor<ui32>
    func.return %0, %1 : tensor<2xi64>, tensor<ui32>
  }
  func.func @main() {
    %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %1 = stablehlo.constant dense<[10, 20]> : tensor<2xi64>
    %2 = stablehlo.constant dense<[100, 200]> : tensor<2xi64>
    %3 = stablehlo.constant dense<[1000, 2000]> : tensor<2xi64>
    %r:8 = "interpreter.run_parallel"(%0, %1, %2, %3) {programs = [[@sum, @sum], [@sum, @sum]]}
        : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
        -> (tensor<2xi64>, tensor<ui32>, tensor<2xi64>, tensor<ui32>,
            tensor<2xi64>, tensor<ui32>, tensor<2xi64>, tensor<ui32>)
    check.expect_eq_const %r#0, dense<[101, 202]> : tensor<2xi64>
    check.expect_eq_const %r#1, dense<0> : tensor<ui32>
    check.expect_eq_const %r#2, dense<[1010, 2020]> : tensor<2xi64>
    check.expect_eq_const %r#3, dense<1> : tensor<ui32>
    check.expect_eq_const %r#4, dense<[101, 202]> : tensor<2xi64>
    check.expect_eq_const %r#5, dense<0> : tensor<ui32>
    check.expect_eq_const %r#6, dense<[1010, 2020]> : tensor<2xi64>
    check.expect_eq_const %r#7, dense<1> : tensor<ui32>
    func.return
  }
}

// -----

module @one_device_fails {
  func.func @id(%x: tensor<i32>) -> tensor<i32> {
    func.return %x : tensor<i32>
  }
  func.func @main() {
    %0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.constant dense<1> : tensor<i32>
    %r:2 = "interpreter.run_parallel"(%0, %1) {programs = [[@id], [@id]]}
        : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    check.expect_eq_const %r#0, dense<0> : tensor<i32>
    check.expect_eq_const %r#1, dense<2> : tensor<i32>
    func.return
  }
}

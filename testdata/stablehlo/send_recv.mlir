// RUN: hlo-run %s
// send and recv between devices, read as XLA's translation writes them
// (send/send-done, recv/recv-done on the channel, the pairs as
// _xla_send_recv_source_target_pairs): channel 1 is the ring r -> r+1, so
// replica r gets x of r-1 with x = {r, r+10}; channel 2 has only the pair
// 0 -> 2, so replicas 0, 1 and 3 get zeros (as eval/collective_send_recv.hlo,
// hand computed).
module @send_recv attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @main() -> (tensor<2xi32>, tensor<2xi32>) {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %b = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %c = stablehlo.constant dense<[0, 10]> : tensor<2xi32>
    %x = stablehlo.add %b, %c : tensor<2xi32>
    %t = stablehlo.after_all : !stablehlo.token
    %s1 = "stablehlo.send"(%x, %t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    %s2 = "stablehlo.send"(%x, %s1) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 2]]> : tensor<1x2xi64>}> : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    %r1:2 = "stablehlo.recv"(%s2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    %r2:2 = "stablehlo.recv"(%r1#1) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 2]]> : tensor<1x2xi64>}> : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    return %r1#0, %r2#0 : tensor<2xi32>, tensor<2xi32>
  }
}

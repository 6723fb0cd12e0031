// Device meshes with named axes (XLA's Mesh and AxisRef,
// xla/hlo/ir/mesh_and_axis.h), and the two things written with them:
// replica groups over mesh axes (`replica_groups=mesh['x'=2,'y'=4] {'y'}`)
// and named shardings (`sharding={mesh['x'=4], [{'x'}, {}]}`).
#ifndef HLO_IR_MESH_H_
#define HLO_IR_MESH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hlo {

// The devices 0..n-1 laid out as `dims` (row-major) and transposed by
// `perm` (result dimension i is dimension perm[i]), row-major: the device
// list `[dims]T(perm)` stands for.
std::vector<int64_t> TransposedIota(const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& perm);

// XLA's canonical form of an iota's reshape dims and permutation
// (IotaTileAssignment::Create): dimensions of size 1 dropped, runs of
// dimensions that stay adjacent and in order under the permutation merged;
// at least one dimension is left ([1] T(0) for a single device).
void CanonicalizeIota(std::vector<int64_t>* reshape_dims, std::vector<int64_t>* perm);

// `'x'` (a whole mesh axis) or `'x':(pre_size)size` (a sub-axis: the axis
// viewed as [pre_size, size, rest], its middle part).
struct MeshAxisRef {
  int64_t axis = 0;      // index into the mesh's axes
  int64_t pre_size = 0;  // 0 for the whole axis
  int64_t size = 0;
  bool is_sub_axis() const { return pre_size != 0; }
  bool operator==(const MeshAxisRef&) const = default;
};

// `mesh['x'=2,'y'=4]` with an optional `, device_ids=(...)`, or
// `maximal_mesh[device_id=N]`, or the empty `mesh[]`.
struct Mesh {
  std::vector<std::string> axis_names;
  std::vector<int64_t> axis_sizes;
  // Which device sits at each mesh position, row-major over axis_sizes:
  // 0, 1, 2, ... when none is set; else the ids 0..N-1 reshaped to
  // iota_reshape_dims and transposed by iota_perm (`device_ids=([4,2]T(1,0))`,
  // kept in XLA's canonical form, never a single dimension), or the explicit
  // list (`device_ids=(3,1,0,2)`).
  std::vector<int64_t> iota_reshape_dims;
  std::vector<int64_t> iota_perm;
  std::vector<int64_t> device_ids;
  std::optional<int64_t> maximal_device;  // maximal_mesh[device_id=N]
  bool operator==(const Mesh&) const = default;

  int64_t device_count() const;
  // The device at every mesh position, row-major.
  std::vector<int64_t> Devices() const;
  // How many devices an axis reference spans.
  int64_t Size(const MeshAxisRef& ref) const {
    return ref.is_sub_axis() ? ref.size : axis_sizes[ref.axis];
  }
};

// replica_groups=mesh[...] {axes}: devices that differ only in the listed
// axes form a group (XLA's MeshAxesReplicaGroupList).
struct MeshReplicaGroups {
  Mesh mesh;
  std::vector<MeshAxisRef> axes;
  bool operator==(const MeshReplicaGroups&) const = default;
};

// The explicit groups, as XLA's MeshAxesReplicaGroupList::
// flattened_replica_groups: the mesh's device array is reshaped so that each
// sub-axis is a dimension of its own, the listed axes are transposed to the
// end (in the order listed) and every run of group-size devices is a group.
// Refuses meshes of more than `max_devices` devices.
absl::StatusOr<std::vector<std::vector<int64_t>>> ExpandMeshReplicaGroups(
    const MeshReplicaGroups& groups, int64_t max_devices = int64_t{1} << 24);

// A sharding over mesh axes (XLA's NamedSharding): per dimension the axes it
// is split along (`{'x', ?}` leaves it open to more), and the axes the value
// is replicated, unreduced or manual along. Its metadata is the Sharding's.
struct NamedSharding {
  enum class Reduction : uint8_t { kSum, kMax, kMin };
  struct Dim {
    std::vector<MeshAxisRef> axes;
    bool closed = true;
    bool operator==(const Dim&) const = default;
  };
  Mesh mesh;
  std::vector<Dim> dims;
  std::vector<MeshAxisRef> replicated, unreduced, manual;
  Reduction reduction = Reduction::kSum;
  bool operator==(const NamedSharding&) const = default;
};

// Text as XLA prints it.
void AppendMesh(std::string& out, const Mesh& mesh);
void AppendMeshAxisRef(std::string& out, const Mesh& mesh, const MeshAxisRef& ref);
// `mesh[...] {axes}`
void AppendMeshReplicaGroups(std::string& out, const MeshReplicaGroups& groups);
// The body of `{...}` without the braces and without metadata:
// `mesh['x'=4], [{'x'}, {}]`, `mesh['x'=4], replicated`, ...
void AppendNamedSharding(std::string& out, const NamedSharding& sharding);

// Checks as XLA's Mesh::Validate, AxisRef::Validate and the overlap rules:
// an empty string when valid, else what is wrong.
std::string ValidateMesh(const Mesh& mesh);
// `axes` of one replica group list (no overlaps, no mergeable neighbours).
std::string ValidateMeshAxes(const Mesh& mesh, const std::vector<MeshAxisRef>& axes);
std::string ValidateNamedSharding(const NamedSharding& sharding);

}  // namespace hlo

#endif  // HLO_IR_MESH_H_

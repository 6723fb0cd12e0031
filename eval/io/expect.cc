#include "eval/io/expect.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "eval/io/run_io.h"
#include "ir/located_status.h"
#include "ir/strings.h"

namespace hlo {
namespace {

namespace fs = std::filesystem;

bool IsDir(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

bool IsNpyFile(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0 && !IsDir(path);
}

// A leaf of the result: its shape, index path and place depth first.
struct Leaf {
  const Shape* shape;
  std::vector<size_t> path;
};

void CollectLeaves(const Shape& shape, std::vector<size_t>& path, std::vector<Leaf>& out) {
  if (!shape.IsTuple()) {
    out.push_back(Leaf{&shape, path});
    return;
  }
  for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
    path.push_back(i);
    CollectLeaves(*shape.tuple_shapes()[i], path, out);
    path.pop_back();
  }
}

std::vector<Leaf> Leaves(const Shape& shape) {
  std::vector<Leaf> out;
  std::vector<size_t> path;
  CollectLeaves(shape, path, out);
  return out;
}

std::string Arrays(int64_t n) { return StrCat(n, n == 1 ? " array" : " arrays"); }

// Builds the literal of `shape` from the leaves' literals, depth first.
Literal Assemble(const Shape& shape, std::vector<Literal>& leaves, size_t& next) {
  if (!shape.IsTuple()) return std::move(leaves[next++]);
  std::vector<Literal> elements;
  for (const Shape* s : shape.tuple_shapes()) elements.push_back(Assemble(*s, leaves, next));
  return Literal::Tuple(std::move(elements));
}

// Puts "result array K (SHAPE): " before what a reader's error says.
absl::Status NameArray(const absl::Status& st, size_t k, const Shape& shape) {
  return hlo::WithSubject(st, StrCat("result array ", k, " (", shape.ToString(false), "): "));
}

// The files of a folder for each leaf; unused .npy files are an error.
absl::StatusOr<std::vector<std::string>> FilesInFolder(const std::string& dir,
                                                       const std::vector<Leaf>& leaves) {
  std::vector<std::string> files;
  std::set<std::string> used;
  for (size_t k = 0; k < leaves.size(); ++k) {
    std::vector<std::string> names;
    std::string own = "result";
    for (size_t i : leaves[k].path) StrAppend(&own, "_", i);
    names.push_back(own + ".npy");
    names.push_back(StrCat("out_", k, ".npy"));
    names.push_back(StrCat("result_", k, ".npy"));
    if (leaves.size() == 1) names.push_back("out.npy");
    std::string found;
    for (const std::string& n : names) {
      std::error_code ec;
      if (fs::is_regular_file(fs::path(dir) / n, ec)) {
        found = n;
        break;
      }
    }
    if (found.empty()) {
      return MarkLocated(absl::NotFoundError(StrCat(dir, ": error: no ", names[0], " or ", names[1],
                                                    " for result array ", k, " (",
                                                    leaves[k].shape->ToString(false), ")")));
    }
    used.insert(found);
    files.push_back((fs::path(dir) / found).string());
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 4 && name.ends_with(".npy") && !used.contains(name)) {
      return MarkLocated(absl::InvalidArgumentError(
          StrCat(dir, "/", name, ": error: not an array of the result (it has ",
                 Arrays(static_cast<int64_t>(leaves.size())), ")")));
    }
  }
  if (ec) {
    return MarkLocated(absl::NotFoundError(StrCat(dir, ": error: cannot read: ", ec.message())));
  }
  return files;
}

}  // namespace

int64_t ResultArrayCount(const Shape& result) {
  return static_cast<int64_t>(Leaves(result).size());
}

absl::StatusOr<std::vector<std::vector<std::string>>> AssignExpectFiles(
    const std::vector<std::string>& given, const Shape& result, int64_t devices) {
  const int64_t n = static_cast<int64_t>(given.size());
  const int64_t arrays = ResultArrayCount(result);
  std::vector<std::vector<std::string>> out(devices);
  if (n == 0) return out;
  const bool all_npy = std::all_of(given.begin(), given.end(), IsNpyFile);
  auto whole = [&](const std::string& f) { return arrays == 1 || !IsNpyFile(f); };
  if (n == 1 && whole(given[0])) {
    for (auto& files : out) files = given;
    return out;
  }
  // An .npy holds one array: n == arrays == devices reads as per array then.
  if (arrays > 1 && n == arrays && (devices == 1 || n != devices || all_npy)) {
    for (auto& files : out) files = given;
    return out;
  }
  if (arrays > 1 && devices > 1 && n == arrays * devices) {
    for (int64_t d = 0; d < devices; ++d) {
      out[d].assign(given.begin() + d * arrays, given.begin() + (d + 1) * arrays);
    }
    return out;
  }
  if (devices > 1 && n == devices && std::all_of(given.begin(), given.end(), whole)) {
    for (int64_t d = 0; d < devices; ++d) out[d] = {given[d]};
    return out;
  }
  std::string ways =
      "one file of the whole result, one .npy per array in order, or a folder "
      "of result_I.npy / out_I.npy";
  if (devices > 1) {
    StrAppend(&ways, "; with ", devices,
              " devices also one per device or one per array per device");
  }
  std::string why = n == 1 ? StrCat(" (", given[0], " holds one array)") : "";
  return absl::InvalidArgumentError(
      StrCat(n, " --expect given", why, ", but the result has ", Arrays(arrays), ": give ", ways));
}

absl::StatusOr<Literal> LoadExpectedResult(const std::vector<std::string>& files,
                                           const Shape& result, const std::string& device_dir) {
  std::vector<Leaf> leaves = Leaves(result);
  std::vector<std::string> leaf_files;
  if (files.size() == 1 && IsDir(files[0])) {
    std::string dir = files[0];
    if (!device_dir.empty() && IsDir(dir + "/" + device_dir)) dir += "/" + device_dir;
    auto found = FilesInFolder(dir, leaves);
    if (!found.ok()) return found.status();
    leaf_files = *std::move(found);
  } else if (files.size() == 1) {
    return LoadExpected(files[0], result);
  } else {
    leaf_files = files;
  }
  if (leaf_files.size() != leaves.size()) {
    return absl::InvalidArgumentError(StrCat(files.size(), " --expect files for a result of ",
                                             Arrays(static_cast<int64_t>(leaves.size()))));
  }
  std::vector<Literal> lits;
  for (size_t k = 0; k < leaves.size(); ++k) {
    auto lit = LoadExpected(leaf_files[k], *leaves[k].shape);
    if (!lit.ok()) return NameArray(lit.status(), k, *leaves[k].shape);
    lits.push_back(*std::move(lit));
  }
  size_t next = 0;
  return Assemble(result, lits, next);
}

}  // namespace hlo

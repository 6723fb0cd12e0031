// The stack-frame index of a module: the source call stacks that metadata's
// `stack_frame_id=N` points into. XLA prints it between the HloModule line
// and the first computation:
//
//   FileNames
//   1 "model.py"
//   FunctionNames
//   1 "main"
//   FileLocations
//   1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=0 end_column=9}
//   StackFrames
//   1 {file_location_id=1 parent_frame_id=1}
//
// Every id is 1-based. In the text a frame's parent_frame_id is one more than
// the parent's id (1 = no parent), as XLA prints it; here `parent` is the
// parent's id itself, 0 for none (XLA's StackFrameIndexProto).
#ifndef HLO_IR_STACK_FRAMES_H_
#define HLO_IR_STACK_FRAMES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace hlo {

class Instruction;
class Module;

struct StackFrameIndex {
  struct FileLocation {
    int32_t file_name_id = 0;
    int32_t function_name_id = 0;
    int32_t line = 0;
    int32_t end_line = 0;
    int32_t column = 0;
    int32_t end_column = 0;
    bool operator==(const FileLocation&) const = default;
  };
  struct Frame {
    int32_t file_location_id = 0;
    int32_t parent = 0;  // the parent frame's id, 0 for none
    bool operator==(const Frame&) const = default;
  };
  std::vector<std::string> file_names;
  std::vector<std::string> function_names;
  std::vector<FileLocation> file_locations;
  std::vector<Frame> frames;

  // XLA prints the index only when it has frames.
  bool empty() const { return frames.empty(); }
  bool operator==(const StackFrameIndex&) const = default;
};

// Appends the index as XLA prints it after the header line: "\n\nFileNames\n"
// ... up to the last frame's line and its newline. Nothing when empty.
void AppendStackFrameIndex(std::string& out, const StackFrameIndex& index);

// What XLA's parser does with the index it read (HloModule::
// CanonicalizeStackFrameIds): walking the computations and instructions in
// order, the frames each metadata stack_frame_id reaches are interned into a
// fresh index, parents before children, equal frames merged, unreachable
// ones dropped; the ids in metadata are renumbered to it. An id that is out
// of range, reaches a cycle or an invalid location is dropped from the
// metadata (XLA sets it to 0, which is not printed), and a metadata left
// empty goes. Unlike XLA, such a path interns none of its frames: XLA keeps
// the valid ancestors it interned before the bad frame, which renumbers the
// index when its printed text is read again (printing is then not a fixed
// point). Returns the first instruction whose stack_frame_id is not a
// 32-bit integer (nothing is changed then), else null.
const Instruction* CanonicalizeStackFrameIds(Module& module, const StackFrameIndex& parsed);

}  // namespace hlo

#endif  // HLO_IR_STACK_FRAMES_H_

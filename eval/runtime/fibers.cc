#include "eval/runtime/fibers.h"

#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "ir/strings.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define HLO_FIBERS_ASAN 1
#endif

#if defined(__x86_64__)
// hlo_fiber_switch(from, to): pushes the callee-saved registers, MXCSR and
// the x87 control word (what the SysV ABI keeps across a call), stores the
// stack pointer in *from, and pops the same from the stack `to` points at,
// returning where that context switched away (or into its start, for a new
// one: PrepareContext's frame). No system call: 11 ns a switch here,
// where swapcontext saves the signal mask with one (0.25 us, 15% of a loop
// of all-reduces).
extern "C" void hlo_fiber_switch(void** from, void* to);
asm(R"(
  .text
  .p2align 4
  .globl hlo_fiber_switch
  .hidden hlo_fiber_switch
  .type hlo_fiber_switch, @function
hlo_fiber_switch:
  .cfi_startproc
  endbr64
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .cfi_endproc
  .size hlo_fiber_switch, .-hlo_fiber_switch
)");
#else
#include <ucontext.h>
#endif

namespace hlo {
namespace {

constexpr size_t kLocals = static_cast<size_t>(Fibers::Local::kCount);

void FiberMain();

// Where a fiber (or the thread, for Run) switched away, to resume it.
#if defined(__x86_64__)
struct Context {
  void* sp = nullptr;
};

// A new context on [bottom, bottom + size) that starts in FiberMain: the
// frame hlo_fiber_switch pops (MXCSR and control word as now, zeros for
// the registers) under FiberMain's address as the return address, with
// the stack aligned as at a call.
void PrepareContext(Context& c, void* bottom, size_t size) {
  uintptr_t top = (reinterpret_cast<uintptr_t>(bottom) + size) & ~uintptr_t{15};
  // After the pops and the ret, rsp = frame + 8 slots, which must be 8 mod
  // 16, as just after a call: frame too.
  auto* frame = reinterpret_cast<uint64_t*>(top) - 11;
  uint32_t mxcsr = 0;
  uint16_t control = 0;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(control));
  frame[0] = mxcsr | (uint64_t{control} << 32);
  for (int r = 1; r <= 6; ++r) frame[r] = 0;  // r15 r14 r13 r12 rbx rbp
  frame[7] = reinterpret_cast<uint64_t>(&FiberMain);
  frame[8] = frame[9] = frame[10] = 0;  // FiberMain's return address: none
  c.sp = frame;
}

void SwitchContext(Context& from, Context& to) { hlo_fiber_switch(&from.sp, to.sp); }
#else
struct Context {
  ucontext_t uc;
};

void PrepareContext(Context& c, void* bottom, size_t size) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = bottom;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, FiberMain, 0);
}

void SwitchContext(Context& from, Context& to) { swapcontext(&from.uc, &to.uc); }
#endif

struct Task {
  Context context;
  void* stack_bottom = nullptr;  // what runs on it (for AddressSanitizer too)
  size_t stack_size = 0;
  std::array<int64_t, kLocals> locals{};
  bool done = false;
};

// One Run in progress on this thread (a fiber may start another: the inner
// one keeps the outer one here meanwhile).
struct Scheduler {
  Context main;
  const void* main_bottom = nullptr;  // the thread's stack, learnt at the first switch
  size_t main_size = 0;
  std::vector<Task> tasks;
  int64_t current = -1;
  const std::function<void(int64_t)>* fn = nullptr;
};

thread_local Scheduler* t_scheduler = nullptr;
thread_local std::array<int64_t, kLocals> t_locals{};

// AddressSanitizer must hear of every stack switch, or it takes the new
// stack's frames for overflows of the old one. `save` null: the fiber
// switched from never runs again.
void StartSwitch(void** save, const void* bottom, size_t size) {
#ifdef HLO_FIBERS_ASAN
  __sanitizer_start_switch_fiber(save, bottom, size);
#else
  (void)save, (void)bottom, (void)size;
#endif
}
void FinishSwitch(void* save, const void** from_bottom, size_t* from_size) {
#ifdef HLO_FIBERS_ASAN
  __sanitizer_finish_switch_fiber(save, from_bottom, from_size);
#else
  (void)save, (void)from_bottom, (void)from_size;
#endif
}

// The next fiber after `from` in turn that has not returned; -1: none.
int64_t NextLive(const Scheduler& s, int64_t from) {
  const int64_t n = static_cast<int64_t>(s.tasks.size());
  for (int64_t k = 1; k <= n; ++k) {
    const int64_t i = (from + k) % n;
    if (!s.tasks[i].done) return i;
  }
  return -1;
}

// Every fiber starts here (the scheduler is the thread's, the fiber its
// `current`), and never returns: it ends by switching to the next live
// fiber, or back to Run.
void FiberMain() {
  Scheduler& s = *t_scheduler;
  const void* from_bottom = nullptr;
  size_t from_size = 0;
  FinishSwitch(nullptr, &from_bottom, &from_size);
  if (s.main_bottom == nullptr) s.main_bottom = from_bottom, s.main_size = from_size;
  const int64_t self = s.current;
  (*s.fn)(self);
  s.tasks[self].done = true;
  const int64_t next = NextLive(s, self);
  Context& to = next < 0 ? s.main : s.tasks[next].context;
  s.current = next;
  if (next < 0) {
    StartSwitch(nullptr, s.main_bottom, s.main_size);
  } else {
    StartSwitch(nullptr, s.tasks[next].stack_bottom, s.tasks[next].stack_size);
  }
  SwitchContext(s.tasks[self].context, to);
  __builtin_unreachable();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Fibers>> Fibers::Create(int64_t count) {
  std::unique_ptr<Fibers> fibers(new Fibers());
  for (int64_t i = 0; i < count; ++i) {
    void* base = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (base == MAP_FAILED) {
      return absl::ResourceExhaustedError(
          StrCat("cannot map a stack for each of the ", count, " devices: ", std::strerror(errno)));
    }
    fibers->stacks_.push_back({base, kStackBytes});
    // A stack that overflows faults on its guard page, not in a neighbour.
    mprotect(base, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_NONE);
  }
  return fibers;
}

Fibers::~Fibers() {
  for (const Stack& s : stacks_) munmap(s.base, s.bytes);
}

void Fibers::Run(const std::function<void(int64_t)>& fn) {
  const int64_t n = count();
  if (n == 0) return;
  const size_t guard = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  Scheduler s;
  s.fn = &fn;
  s.tasks.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    Task& t = s.tasks[i];
    t.stack_bottom = static_cast<char*>(stacks_[i].base) + guard;
    t.stack_size = stacks_[i].bytes - guard;
#ifdef HLO_FIBERS_ASAN
    // A fiber ends by switching away, its frames never unwound: their
    // redzones from the last run are still marked.
    ASAN_UNPOISON_MEMORY_REGION(t.stack_bottom, t.stack_size);
#endif
    PrepareContext(t.context, t.stack_bottom, t.stack_size);
  }
  Scheduler* outer = t_scheduler;
  t_scheduler = &s;
  s.current = 0;
  void* save = nullptr;
  StartSwitch(&save, s.tasks[0].stack_bottom, s.tasks[0].stack_size);
  SwitchContext(s.main, s.tasks[0].context);  // back when every fiber returned
  FinishSwitch(save, nullptr, nullptr);
  t_scheduler = outer;
}

bool Fibers::InFiber() { return t_scheduler != nullptr && t_scheduler->current >= 0; }

void Fibers::Yield() {
  Scheduler* s = t_scheduler;
  if (s == nullptr || s->current < 0) return;
  const int64_t self = s->current, next = NextLive(*s, self);
  if (next < 0 || next == self) return;
  s->current = next;
  void* save = nullptr;
  StartSwitch(&save, s->tasks[next].stack_bottom, s->tasks[next].stack_size);
  SwitchContext(s->tasks[self].context, s->tasks[next].context);
  FinishSwitch(save, nullptr, nullptr);
}

int64_t& Fibers::LocalCounter(Local which) {
  const size_t k = static_cast<size_t>(which);
  if (InFiber()) return t_scheduler->tasks[t_scheduler->current].locals[k];
  return t_locals[k];
}

}  // namespace hlo

// mmap as libxsmm calls it, without MAP_LOCKED.
//
// libxsmm maps its buffers with MAP_LOCKED, which faults in every page at
// once: its code registry alone is 9 MB of keys and pointers, of which a
// kernel's lookup touches a page or two, and ResNet-50's forward pass held
// 10 MB more than it used (peak data 1.21x its live arrays). Where libxsmm
// is built in, everything that links hlo_eval links with --wrap=mmap and
// --undefined=__wrap_mmap (CMakeLists.txt: the second makes the linker take
// this file from the archive even where nothing calls libxsmm), so that
// mmap calls come here and map pages as they are first touched, as every
// other mapping does. Only statically linked code is wrapped: libxsmm.a,
// Abseil's archives and this project's own calls, none of which but
// libxsmm asks for MAP_LOCKED.
#ifdef HLO_HAVE_LIBXSMM
#include <sys/mman.h>
#include <sys/types.h>

#include <cstddef>

extern "C" void* __real_mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset);
extern "C" void* __wrap_mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  return __real_mmap(addr, length, prot, flags & ~MAP_LOCKED, fd, offset);
}
#endif  // HLO_HAVE_LIBXSMM

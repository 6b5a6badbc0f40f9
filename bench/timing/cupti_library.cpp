#include "bench/timing/cupti_library.h"

#include <cupti_result.h>
#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace gemmscope::cupti {
namespace {

void* load() {
  // The toolkit's own library first (records and parameter structs have the layout of the
  // headers we were built with), then whatever the loader finds.
  for (const char* name : {GEMMSCOPE_CUPTI_LIBRARY, "libcupti.so", "libcupti.so.13"}) {
    if (void* loaded = dlopen(name, RTLD_NOW | RTLD_LOCAL))
      return loaded;
  }
  throw std::runtime_error(std::string("cannot load CUPTI (") + GEMMSCOPE_CUPTI_LIBRARY +
                           "): " + dlerror());
}

}  // namespace

void* library() {
  static void* const loaded = load();  // a failed load throws again on the next call
  return loaded;
}

void* symbol_address(const char* name) {
  void* address = dlsym(library(), name);
  if (address == nullptr)
    throw std::runtime_error(std::string("libcupti has no ") + name);
  return address;
}

void check(int result, const char* call) {
  if (result == CUPTI_SUCCESS)
    return;
  const char* text = nullptr;
  symbol<CUptiResult (*)(CUptiResult, const char**)>("cuptiGetResultString")(
      static_cast<CUptiResult>(result), &text);
  throw std::runtime_error(std::string(call) + ": " + (text ? text : "unknown CUPTI error"));
}

}  // namespace gemmscope::cupti

// Stand-in for kernel32.dll: thread start and the Toolhelp snapshot API.
#include "common.h"
EXPORT void BaseThreadInitThunk() { FIXTURE_BODY(1); }
EXPORT void CreateToolhelp32Snapshot() { FIXTURE_BODY(2); }
EXPORT void Process32FirstW() { FIXTURE_BODY(3); }
EXPORT void Process32NextW() { FIXTURE_BODY(4); }

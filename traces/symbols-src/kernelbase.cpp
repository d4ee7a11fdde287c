// Stand-in for KernelBase.dll.
#include "common.h"
EXPORT void CreateFileW() { FIXTURE_BODY(1); }
EXPORT void LoadLibraryExW() { FIXTURE_BODY(2); }
EXPORT void FreeLibrary() { FIXTURE_BODY(3); }
EXPORT void WaitForMultipleObjectsEx() { FIXTURE_BODY(4); }

// Stand-in for ntdll.dll: only the functions the demo trace's stacks use.
#include "common.h"
EXPORT void RtlUserThreadStart() { FIXTURE_BODY(1); }
EXPORT void TppWorkerThread() { FIXTURE_BODY(2); }
EXPORT void NtQuerySystemInformation() { FIXTURE_BODY(3); }
EXPORT void NtMapViewOfSection() { FIXTURE_BODY(4); }
EXPORT void NtUnmapViewOfSection() { FIXTURE_BODY(5); }
EXPORT void NtCreateFile() { FIXTURE_BODY(6); }
EXPORT void LdrLoadDll() { FIXTURE_BODY(7); }
EXPORT void RtlAllocateHeap() { FIXTURE_BODY(8); }
EXPORT void NtWaitForMultipleObjects() { FIXTURE_BODY(9); }

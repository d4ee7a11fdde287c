// Stand-in for SHCore.dll: the shell's worker threads.
#include "common.h"
namespace WorkThreadManager {
class __declspec(dllexport) CThread {
public:
    METHOD static void ThreadProc();
};
void CThread::ThreadProc() { FIXTURE_BODY(1); }
}
EXPORT void ExecuteWorkItemThreadProc() { FIXTURE_BODY(2); }

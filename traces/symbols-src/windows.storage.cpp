// Stand-in for windows.storage.dll: the overlay-icon path of the shell
// namespace (C++ methods, so the PDB carries their qualified names).
#include "common.h"
class __declspec(dllexport) CFSFolder {
public:
    METHOD void _GetOverlayInfo();
    METHOD void GetAttributesOf();
    METHOD void _GetPathForItem();
};
void CFSFolder::_GetOverlayInfo() { FIXTURE_BODY(1); }
void CFSFolder::GetAttributesOf() { FIXTURE_BODY(2); }
void CFSFolder::_GetPathForItem() { FIXTURE_BODY(3); }
class __declspec(dllexport) CFSIconOverlayManager {
public:
    METHOD void GetFileOverlayInfo();
    METHOD void _GetBestOverlay();
};
void CFSIconOverlayManager::GetFileOverlayInfo() { FIXTURE_BODY(4); }
void CFSIconOverlayManager::_GetBestOverlay() { FIXTURE_BODY(5); }
class __declspec(dllexport) CShellItem {
public:
    METHOD void GetAttributes();
};
void CShellItem::GetAttributes() { FIXTURE_BODY(6); }

//! Call stacks of the scenario, root first, built from the fixture PDBs'
//! function RVAs (pdbs.rs) so that symbolized frames get the right names.
//! tishell64 has no PDB: its frames are bare RVAs inside the image.

use super::images::{find, ImageSpec, SHELL_EXTENSION};
use super::pdbs::FUNCTIONS;
use crate::prng::Rng;

/// What a sample (or a file create) was doing; picks its stack's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Work {
    /// Overlay path, tishell64 -> kernel32!CreateToolhelp32Snapshot.
    OverlaySnapshot,
    /// Overlay path, tishell64 -> kernel32!Process32NextW (section mapping, page faults).
    OverlayProcessNext,
    /// Overlay path, in tishell64 itself or its file and library calls.
    OverlayExtension,
    /// Overlay path without the extension on the stack.
    OverlayShellOnly,
    /// tishell64 reached from CFSFolder::GetAttributesOf (not the overlay path).
    ExtensionElsewhere,
    /// explorer's other work (UI thread, worker pool).
    ExplorerOther,
    /// The extension opening ti_managers_proxy.dll (file I/O stacks).
    OpenProxy,
    /// explorer opening other files.
    OpenOther,
    Dwm,
    Edge,
    Svchost,
    SystemWorker,
    Idle,
}

/// A stack split as the kernel logs it: user half and kernel half, root first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stack {
    pub user: Vec<u64>,
    pub kernel: Vec<u64>,
}

pub struct StackBuilder<'a> {
    pub explorer: &'a [ImageSpec],
    pub kernel: &'a [ImageSpec],
    pub others: &'a [(&'static str, Vec<ImageSpec>)],
}

impl StackBuilder<'_> {
    /// A return address inside `module!function` (the v-th of a few).
    fn f(&self, images: &[ImageSpec], module: &str, function: &str, v: u64) -> u64 {
        let base = find(images, module).map_or(0, |i| i.base);
        match FUNCTIONS
            .iter()
            .find(|f| f.image.eq_ignore_ascii_case(module) && f.name == function)
        {
            // Code sizes are 49 bytes: offsets 5..45 stay inside.
            Some(f) => base + u64::from(f.rva) + 5 + 8 * (v % 5),
            None => base + 0x1000,
        }
    }
    fn u(&self, module: &str, function: &str, v: u64) -> u64 {
        self.f(self.explorer, module, function, v)
    }
    fn k(&self, function: &str, v: u64) -> u64 {
        self.f(self.kernel, "ntoskrnl.exe", function, v)
    }
    /// An address in a module without a PDB of ours, at `rva`.
    fn raw(&self, images: &[ImageSpec], module: &str, rva: u64) -> u64 {
        find(images, module).map_or(0, |i| i.base + rva % i.size.max(1))
    }
    fn ext(&self, rva: u64) -> u64 {
        self.raw(self.explorer, SHELL_EXTENSION, rva)
    }

    fn thread_root(&self, v: u64) -> Vec<u64> {
        vec![
            self.u("ntdll.dll", "RtlUserThreadStart", v),
            self.u("kernel32.dll", "BaseThreadInitThunk", v),
        ]
    }

    /// Worker thread -> shell view -> CFSFolder::_GetOverlayInfo, which asks
    /// the overlay handlers (the extension's IsMemberOf) directly: the caller
    /// tree of Process32NextW reaches it two levels up (issue 16).
    fn overlay_root(&self, v: u64) -> Vec<u64> {
        let mut s = self.thread_root(v);
        s.extend([
            self.u("SHCore.dll", "WorkThreadManager::CThread::ThreadProc", v),
            self.u("SHCore.dll", "ExecuteWorkItemThreadProc", v),
            self.u("shell32.dll", "CDefView::_GetItemOverlay", v),
            self.u("windows.storage.dll", "CShellItem::GetAttributes", v),
            self.u("windows.storage.dll", "CFSFolder::_GetOverlayInfo", v),
        ]);
        s
    }

    /// The shell's own overlay bookkeeping below _GetOverlayInfo (no extension).
    fn overlay_manager(&self, v: u64) -> [u64; 2] {
        [
            self.u(
                "windows.storage.dll",
                "CFSIconOverlayManager::GetFileOverlayInfo",
                v,
            ),
            self.u(
                "windows.storage.dll",
                "CFSIconOverlayManager::_GetBestOverlay",
                v,
            ),
        ]
    }

    /// The extension's own frames: IsMemberOf and the helper it calls.
    fn ext_frames(&self, v: u64) -> [u64; 3] {
        [
            self.ext(0x1_8A40 + (v % 3) * 0x12),
            self.ext(0x3_1C10 + (v % 4) * 0x20),
            self.ext(0x4_07E0 + (v % 6) * 0x18),
        ]
    }

    fn syscall(&self, function: &str, v: u64) -> Vec<u64> {
        vec![self.k("KiSystemServiceCopyEnd", v), self.k(function, v)]
    }

    pub fn stack(&self, work: Work, rng: &mut Rng) -> Stack {
        let v = rng.below(5);
        let pick = rng.below(100);
        match work {
            Work::OverlaySnapshot => {
                let mut user = self.overlay_root(v);
                user.push(self.ext_frames(v)[0]);
                user.push(self.u("kernel32.dll", "CreateToolhelp32Snapshot", v));
                if pick < 10 {
                    return Stack {
                        user,
                        kernel: vec![],
                    };
                }
                user.push(self.u("ntdll.dll", "NtQuerySystemInformation", v));
                let mut kernel = self.syscall("NtQuerySystemInformation", v);
                kernel.push(self.k("ExpQuerySystemInformation", v));
                if pick >= 25 {
                    kernel.push(self.k("ExpGetProcessInformation", v));
                }
                Stack { user, kernel }
            }
            Work::OverlayProcessNext => {
                let mut user = self.overlay_root(v);
                user.push(self.ext_frames(v)[0]);
                user.push(self.u("kernel32.dll", "Process32NextW", v));
                let kernel = if pick < 45 {
                    // Mapping the snapshot's section for each call.
                    user.push(self.u("ntdll.dll", "NtMapViewOfSection", v));
                    let mut k = self.syscall("NtMapViewOfSection", v);
                    k.push(self.k("MiMapViewOfSection", v));
                    k
                } else if pick < 85 {
                    // Touching the fresh view: demand-zero page faults.
                    vec![
                        self.k("KiPageFault", v),
                        self.k("MmAccessFault", v),
                        self.k("MiResolveDemandZeroFault", v),
                    ]
                } else if pick < 93 {
                    user.push(self.u("ntdll.dll", "NtUnmapViewOfSection", v));
                    self.syscall("NtMapViewOfSection", v)
                } else {
                    vec![]
                };
                Stack { user, kernel }
            }
            Work::OverlayExtension => {
                let mut user = self.overlay_root(v);
                let e = self.ext_frames(v);
                let mut kernel = vec![];
                if pick < 55 {
                    user.extend(&e[..1 + (pick % 3) as usize]);
                } else if pick < 75 {
                    user.extend(e);
                    user.push(self.u("KernelBase.dll", "CreateFileW", v));
                    user.push(self.u("ntdll.dll", "NtCreateFile", v));
                    kernel = self.syscall("NtCreateFile", v);
                    kernel.push(self.k("IopCreateFile", v));
                } else if pick < 90 {
                    user.extend(e);
                    user.push(self.u("KernelBase.dll", "LoadLibraryExW", v));
                    user.push(self.u("ntdll.dll", "LdrLoadDll", v));
                } else {
                    user.extend(e);
                    user.push(self.u("KernelBase.dll", "FreeLibrary", v));
                }
                Stack { user, kernel }
            }
            Work::OverlayShellOnly => {
                let mut user = self.overlay_root(v);
                if pick >= 70 {
                    user.extend(self.overlay_manager(v));
                    user.push(self.u("ntdll.dll", "RtlAllocateHeap", v));
                } else if pick >= 40 {
                    user.push(self.u("windows.storage.dll", "CFSFolder::_GetPathForItem", v));
                }
                Stack {
                    user,
                    kernel: vec![],
                }
            }
            Work::ExtensionElsewhere => {
                let mut user = self.ui_root(v);
                user.extend([
                    self.u("shell32.dll", "CDefView::_OnDisplayChange", v),
                    self.u("windows.storage.dll", "CFSFolder::GetAttributesOf", v),
                ]);
                let e = self.ext_frames(v + 1);
                if pick < 60 {
                    user.extend(&e[..1 + (pick % 3) as usize]);
                } else if pick < 85 {
                    user.extend(e);
                    user.push(self.u("kernel32.dll", "Process32FirstW", v));
                } else {
                    user.extend(e);
                    user.push(self.u("ntdll.dll", "RtlAllocateHeap", v));
                }
                Stack {
                    user,
                    kernel: vec![],
                }
            }
            Work::ExplorerOther => self.explorer_other(v, pick),
            Work::OpenProxy => {
                let mut user = self.overlay_root(v);
                user.extend(self.ext_frames(v));
                user.push(self.u("KernelBase.dll", "CreateFileW", v));
                user.push(self.u("ntdll.dll", "NtCreateFile", v));
                let mut kernel = self.syscall("NtCreateFile", v);
                kernel.push(self.k("IopCreateFile", v));
                Stack { user, kernel }
            }
            Work::OpenOther => {
                let mut user = self.ui_root(v);
                user.extend([
                    self.u("windows.storage.dll", "CFSFolder::_GetPathForItem", v),
                    self.u("KernelBase.dll", "CreateFileW", v),
                    self.u("ntdll.dll", "NtCreateFile", v),
                ]);
                let mut kernel = self.syscall("NtCreateFile", v);
                kernel.push(self.k("ObOpenObjectByNameEx", v));
                Stack { user, kernel }
            }
            Work::Dwm => self.other_process(0, v, pick),
            Work::Edge => self.other_process(1, v, pick),
            Work::Svchost => self.other_process(2, v, pick),
            Work::SystemWorker => Stack {
                user: vec![],
                kernel: vec![
                    self.raw(self.kernel, "ntoskrnl.exe", 0x35_5A40 + v * 0x10),
                    self.raw(self.kernel, "ntoskrnl.exe", 0x2A_1100 + pick * 0x40),
                    self.raw(self.kernel, "Ntfs.sys", 0x1_2340 + pick * 0x30),
                ],
            },
            Work::Idle => Stack::default(),
        }
    }

    /// explorer's UI thread: wWinMain -> message loop -> window procedure.
    fn ui_root(&self, v: u64) -> Vec<u64> {
        let mut s = self.thread_root(v);
        s.extend([
            self.u("explorer.exe", "wWinMain", v),
            self.u("explorer.exe", "CTray::_MessageLoop", v),
            self.u("user32.dll", "DispatchMessageW", v),
            self.u("user32.dll", "UserCallWinProcCheckWow", v),
            self.u("explorer.exe", "CTray::v_WndProc", v),
        ]);
        s
    }

    fn explorer_other(&self, v: u64, pick: u64) -> Stack {
        // Leaves in modules without our PDBs (named by RVA only).
        const LEAVES: [&str; 8] = [
            "twinui.dll",
            "ExplorerFrame.dll",
            "dwmapi.dll",
            "uxtheme.dll",
            "gdi32full.dll",
            "Windows.UI.Xaml.dll",
            "combase.dll",
            "CoreMessaging.dll",
        ];
        let leaf = LEAVES[(pick % LEAVES.len() as u64) as usize];
        let mut user = if pick < 50 {
            self.ui_root(v)
        } else {
            let mut s = self.thread_root(v);
            s.push(self.u("ntdll.dll", "TppWorkerThread", v));
            s
        };
        if matches!(pick % 5, 0) {
            user.push(self.u("windows.storage.dll", "CFSFolder::GetAttributesOf", v));
        }
        user.push(self.raw(self.explorer, leaf, 0x1_1000 + pick * 0x1F0 + v * 0x10));
        let kernel = if matches!(pick % 7, 0) {
            vec![self.k("KiPageFault", v), self.k("MmAccessFault", v)]
        } else {
            vec![]
        };
        Stack { user, kernel }
    }

    fn other_process(&self, which: usize, v: u64, pick: u64) -> Stack {
        let Some((_, images)) = self.others.get(which) else {
            return Stack::default();
        };
        let exe = images.first().map(|i| i.file_name()).unwrap_or("");
        let dll = images.get(1).map(|i| i.file_name()).unwrap_or("");
        let user = vec![
            self.f(images, "ntdll.dll", "RtlUserThreadStart", v),
            self.f(images, "kernel32.dll", "BaseThreadInitThunk", v),
            self.raw(images, exe, 0x2_4000 + v * 0x40),
            self.raw(images, dll, 0x10_0000 + pick * 0x2210),
            self.raw(images, "d3d11.dll", 0x4_0000 + pick * 0x100),
        ];
        let kernel = if pick < 20 {
            vec![self.raw(self.kernel, "dxgkrnl.sys", 0x8_1000 + pick * 0x40)]
        } else {
            vec![]
        };
        Stack { user, kernel }
    }
}

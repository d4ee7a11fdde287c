//! The images of the scenario's processes: explorer.exe's 370 (every name
//! of `system32_dlls.txt`, explorer.exe and two Acronis DLLs), and smaller
//! sets for the processes idling around it. System DLLs sit at one base in
//! every process, as on Windows.

use super::pdbs::FUNCTIONS;
use crate::events::VersionInfo;
use crate::prng::Rng;
use etl::Guid;

pub const SYSTEM32: &str = r"C:\Windows\System32\";
pub const ACRONIS_DIR: &str = r"C:\Program Files (x86)\Acronis\TrueImageHome\";
pub const SHELL_EXTENSION: &str = "tishell64_26_0_39450.dll";
pub const SHELL_EXTENSION_DIR: &str = r"C:\Program Files\Common Files\Acronis\TrueImageHome\";
pub const PROXY_DLL: &str = "ti_managers_proxy.dll";

/// Microsoft images of explorer.exe whose FileVersion event is missing
/// (the published investigation found ten; these names are our choice).
pub const UNVERSIONED_MICROSOFT: [&str; 10] = [
    "Windows.UI.BlockedShutdown.dll",
    "Windows.Internal.Signals.dll",
    "windows.immersiveshell.serviceprovider.dll",
    "Windows.Shell.StartLayoutPopulationEvents.dll",
    "Windows.Internal.UI.Shell.WindowTabManager.dll",
    "windows.fileexplorer.contextmenu.dll",
    "Windows.FileExplorer.Common.dll",
    "StartTileData.dll",
    "languageoverlayutil.dll",
    "UserDataTypeHelperUtil.dll",
];

const DLL_NAMES: &str = include_str!("system32_dlls.txt");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    Microsoft,
    Acronis,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageSpec {
    pub path: String,
    pub base: u64,
    pub size: u64,
    pub time_date_stamp: u32,
    pub checksum: u32,
    pub kernel: bool,
    pub vendor: Vendor,
    /// False for the images whose FileVersion event is left out.
    pub versioned: bool,
    pub pdb_name: String,
    pub pdb_guid: Guid,
    pub pdb_age: u32,
}

impl ImageSpec {
    pub fn file_name(&self) -> &str {
        self.path.rsplit('\\').next().unwrap_or(&self.path)
    }

    pub fn version(&self) -> (String, VersionStrings) {
        let name = self.file_name().to_string();
        let v = match self.vendor {
            Vendor::Microsoft => VersionStrings {
                description: describe(&name),
                file_version: format!(
                    "10.0.19041.{} (WinBuild.160101.0800)",
                    1 + self.time_date_stamp % 4000
                ),
                product_name: "Microsoft\u{ae} Windows\u{ae} Operating System".into(),
                company_name: "Microsoft Corporation".into(),
                product_version: "10.0.19041.1".into(),
            },
            Vendor::Acronis => VersionStrings {
                description: "Acronis True Image shell extension".into(),
                file_version: "26.0.39450".into(),
                product_name: "Acronis True Image".into(),
                company_name: "Acronis International GmbH".into(),
                product_version: "26.0.39450".into(),
            },
        };
        (name, v)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionStrings {
    pub description: String,
    pub file_version: String,
    pub product_name: String,
    pub company_name: String,
    pub product_version: String,
}

impl VersionStrings {
    pub fn info<'a>(&'a self, original_file_name: &'a str) -> VersionInfo<'a> {
        VersionInfo {
            original_file_name,
            file_description: &self.description,
            file_version: &self.file_version,
            product_name: &self.product_name,
            company_name: &self.company_name,
            product_version: &self.product_version,
        }
    }
}

fn describe(name: &str) -> String {
    let known = [
        ("ntdll.dll", "NT Layer DLL"),
        ("kernel32.dll", "Windows NT BASE API Client DLL"),
        ("KernelBase.dll", "Windows NT BASE API Client DLL"),
        ("windows.storage.dll", "Microsoft WinRT Storage API"),
        ("shell32.dll", "Windows Shell Common Dll"),
        ("SHCore.dll", "SHCORE"),
        ("user32.dll", "Multi-User Windows USER API Client DLL"),
        ("explorer.exe", "Windows Explorer"),
        ("ntoskrnl.exe", "NT Kernel & System"),
    ];
    match known.iter().find(|(n, _)| *n == name) {
        Some((_, d)) => d.to_string(),
        None => {
            let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
            format!("{stem} component")
        }
    }
}

/// PDB identity: the fixture's (pdbs.rs) when we built one, else a made-up one.
fn pdb_identity(rng: &mut Rng, file_name: &str) -> (String, Guid, u32) {
    if let Some(f) = FUNCTIONS.iter().find(|f| f.image == file_name) {
        let guid = u128::from_str_radix(f.guid, 16).map_or(Guid::default(), Guid::from_u128);
        return (f.pdb.to_string(), guid, f.age);
    }
    let stem = file_name.rsplit_once('.').map_or(file_name, |(s, _)| s);
    let guid = Guid::from_u128(u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()));
    (format!("{stem}.pdb"), guid, 1 + rng.below(3) as u32)
}

/// Lays images out from `base` upwards, 64 KB aligned, with gaps.
struct Layout<'r> {
    rng: &'r mut Rng,
    next: u64,
}

impl Layout<'_> {
    fn place(&mut self, path: String, kernel: bool, vendor: Vendor, min_size: u64) -> ImageSpec {
        let size = (0x1_0000 * self.rng.range(1, 64)).max(min_size);
        let base = self.next;
        self.next += size + 0x1_0000 * self.rng.range(1, 4);
        let name = path.rsplit('\\').next().unwrap_or(&path).to_string();
        let (pdb_name, pdb_guid, pdb_age) = pdb_identity(self.rng, &name);
        ImageSpec {
            path,
            base,
            size,
            time_date_stamp: 0x5F00_0000 + self.rng.below(0x0800_0000) as u32,
            checksum: self.rng.next_u64() as u32 & 0x00FF_FFFF,
            kernel,
            vendor,
            versioned: true,
            pdb_name,
            pdb_guid,
            pdb_age,
        }
    }
}

/// Every image of the machine, in the processes that load them.
pub struct Images {
    pub kernel: Vec<ImageSpec>,
    /// explorer.exe's 370, explorer.exe first.
    pub explorer: Vec<ImageSpec>,
    /// (process name, its images): dwm.exe, msedge.exe, svchost.exe.
    pub others: Vec<(&'static str, Vec<ImageSpec>)>,
}

impl Images {
    pub fn new(rng: &mut Rng) -> Images {
        let mut k = Layout {
            rng,
            next: 0xFFFF_F805_4A20_0000,
        };
        let kernel: Vec<ImageSpec> = [
            r"\SystemRoot\system32\ntoskrnl.exe",
            r"\SystemRoot\system32\hal.dll",
            r"\SystemRoot\System32\drivers\Ntfs.sys",
            r"\SystemRoot\System32\drivers\FLTMGR.SYS",
            r"\SystemRoot\System32\drivers\tcpip.sys",
            r"\SystemRoot\System32\drivers\dxgkrnl.sys",
            r"\SystemRoot\System32\win32kbase.sys",
            r"\SystemRoot\System32\win32kfull.sys",
        ]
        .iter()
        .map(|p| k.place(p.to_string(), true, Vendor::Microsoft, 0x20_0000))
        .collect();
        let rng = k.rng;
        let mut u = Layout {
            rng,
            next: 0x7FF8_2A00_0000,
        };
        let mut shared: Vec<ImageSpec> = DLL_NAMES
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|n| {
                let mut i = u.place(
                    format!("{SYSTEM32}{}", n.trim()),
                    false,
                    Vendor::Microsoft,
                    0x1_0000,
                );
                i.versioned = !UNVERSIONED_MICROSOFT.contains(&n.trim());
                i
            })
            .collect();
        // The shell extension is the unversioned third-party DLL of the
        // investigation (the 11th beside ten Microsoft ones); the proxy it opens has a version.
        let mut ext = u.place(
            format!("{SHELL_EXTENSION_DIR}{SHELL_EXTENSION}"),
            false,
            Vendor::Acronis,
            0x18_0000,
        );
        ext.versioned = false;
        let proxy = u.place(
            format!("{ACRONIS_DIR}{PROXY_DLL}"),
            false,
            Vendor::Acronis,
            0x1_0000,
        );
        let mut exes = Layout {
            rng: u.rng,
            next: 0x7FF6_1D40_0000,
        };
        let explorer_exe = exes.place(
            r"C:\Windows\explorer.exe".into(),
            false,
            Vendor::Microsoft,
            0x40_0000,
        );
        let mut explorer = vec![explorer_exe];
        explorer.append(&mut shared.clone());
        explorer.push(ext);
        explorer.push(proxy);
        // The other processes: their exe, their own DLLs, common system DLLs.
        let common = [
            "ntdll.dll",
            "kernel32.dll",
            "KernelBase.dll",
            "ucrtbase.dll",
            "combase.dll",
            "rpcrt4.dll",
            "user32.dll",
            "win32u.dll",
            "gdi32.dll",
            "d3d11.dll",
            "dxgi.dll",
        ];
        shared.retain(|i| common.contains(&i.file_name()));
        let mut others = Vec::new();
        for (name, exe, dlls) in [
            (
                "dwm.exe",
                r"C:\Windows\System32\dwm.exe",
                &[
                    r"C:\Windows\System32\dwmcore.dll",
                    r"C:\Windows\System32\udwm.dll",
                ][..],
            ),
            (
                "msedge.exe",
                r"C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe",
                &[r"C:\Program Files (x86)\Microsoft\Edge\Application\120.0.2210.91\msedge.dll"][..],
            ),
            (
                "svchost.exe",
                r"C:\Windows\System32\svchost.exe",
                &[r"C:\Windows\System32\wuaueng.dll"][..],
            ),
        ] {
            let mut v = vec![exes.place(exe.into(), false, Vendor::Microsoft, 0x1_0000)];
            for d in dlls {
                v.push(exes.place(d.to_string(), false, Vendor::Microsoft, 0x40_0000));
            }
            v.extend(shared.iter().cloned());
            others.push((name, v));
        }
        Images {
            kernel,
            explorer,
            others,
        }
    }
}

/// The image of `list` whose file name is `name` (ASCII case-insensitive).
pub fn find<'a>(list: &'a [ImageSpec], name: &str) -> Option<&'a ImageSpec> {
    list.iter()
        .find(|i| i.file_name().eq_ignore_ascii_case(name))
}

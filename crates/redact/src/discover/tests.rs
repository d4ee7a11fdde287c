use super::*;
use crate::mask::Salt;

fn opts() -> Options {
    Options {
        keep: Vec::new(),
        path_prefixes: vec!["C:\\src".into()],
        salt: Salt(11),
    }
}

fn found(texts: &[&str]) -> Found {
    let mut f = Found::default();
    for t in texts {
        scan_text(t, &opts(), &mut f);
    }
    f
}

fn has(f: &Found, c: Category, s: &str) -> bool {
    f.items.contains_key(&(c, s.to_string()))
}

#[test]
fn profile_folders_give_users_and_domains() {
    let f = found(&[
        "C:\\Users\\liha.REDMOND\\AppData\\x.dll",
        "C:\\Users\\LIHA~1.RED\\AppData",
        "\\Device\\HarddiskVolume3\\Users\\brianrob\\x",
        "C:\\Users\\Public\\Desktop",
        "/home/ann/.cache",
    ]);
    assert!(has(&f, Category::Users, "liha"));
    assert!(has(&f, Category::Users, "LIHA"));
    assert!(has(&f, Category::Domain, "REDMOND"));
    assert!(has(&f, Category::Users, "brianrob"));
    assert!(has(&f, Category::Users, "ann"));
    assert!(!f.items.keys().any(|(_, s)| s == "Public"));
}

#[test]
fn command_lines_keep_the_image() {
    let cl = exe_command_line("\"C:\\Program Files\\app.exe\" --token=abc123 x").expect("cl");
    assert_eq!(cl.image, "\"C:\\Program Files\\app.exe");
    assert_eq!(cl.gap, "\" ");
    assert_eq!(cl.args, "--token=abc123 x");
    let cl = exe_command_line("C:\\Windows\\system32\\svchost.exe -k netsvcs").expect("cl");
    assert_eq!(
        (cl.image.as_str(), cl.args.as_str()),
        ("C:\\Windows\\system32\\svchost.exe", "-k netsvcs")
    );
    // A byte of the field before the string is no part of the image.
    let cl = exe_command_line("ec:\\windows\\system32\\svchost.exe -k x").expect("cl");
    assert_eq!(cl.image, "c:\\windows\\system32\\svchost.exe");
    let cl = exe_command_line("e%SystemRoot%\\system32\\csrss.exe ObjectDirectory=x").expect("cl");
    assert_eq!(cl.image, "%SystemRoot%\\system32\\csrss.exe");
    assert!(exe_command_line("C:\\Windows\\notepad.exe").is_none());
    assert!(exe_command_line("C:\\a.exeb c").is_none());
}

#[test]
fn environment_and_addresses() {
    let f = found(&[
        "USERNAME=liha",
        "COMPUTERNAME=BUILD-7",
        "PROCESSOR_LEVEL=6",
        "connect 10.20.30.40:443",
    ]);
    assert!(has(&f, Category::Users, "liha"));
    assert!(has(&f, Category::Computer, "BUILD-7"));
    assert!(!f.items.keys().any(|(_, s)| s == "6"));
    assert!(has(&f, Category::Network, "10.20.30.40"));
    assert!(ipv4_addresses("mscorlib, Version=4.0.0.0").is_empty());
    assert!(ipv4_addresses("1.2.3.4.5 127.0.0.1 0.0.0.0 300.1.1.1 v1.2.3.4 6.2.9200.0").is_empty());
    assert_eq!(
        ipv4_addresses("dns=10.50.10.50;10.50.50.50"),
        ["10.50.10.50", "10.50.50.50"]
    );
    assert_eq!(
        ipv6_addresses("2001:4898::1050:1050;fe80::5efe:10.128.0.55 at 12:34:56 ::1"),
        ["2001:4898::1050:1050", "fe80::5efe:10.128.0.55"]
    );
    let f = found(&["ip 2001:4898:f0:26:950:d6de:fa84:4cc0"]);
    let m = needles(&f, &opts());
    let r = &m.needles()[0].replacement;
    assert!(r.chars().all(|c| c.is_ascii_hexdigit() || c == ':'), "{r}");
}

#[test]
fn paths_under_a_prefix_are_replaced_by_component() {
    let f = found(&[
        "C:\\src\\proj\\Main.cs",
        "\\Device\\HarddiskVolume2\\src\\proj",
    ]);
    assert!(has(&f, Category::Paths, "\\proj\\Main.cs"));
    assert!(has(&f, Category::Paths, "\\proj"));
    let m = needles(&f, &opts());
    let by = |k: &str| {
        m.needles()
            .iter()
            .find(|n| n.key == k)
            .map(|n| n.replacement.clone())
    };
    let file = by("\\proj\\main.cs").expect("file");
    let dir = by("\\proj").expect("dir");
    assert!(file.starts_with(&dir), "{file} {dir}");
    assert!(file.ends_with(".cs"));
}

#[test]
fn a_command_line_in_a_profile_folder_loses_the_user_too() {
    let f = found(&["C:\\Users\\ann\\tool.exe --secret=42"]);
    let m = needles(&f, &opts());
    let whole = m
        .needles()
        .iter()
        .find(|n| n.category == Category::CommandLines && n.key.contains("tool.exe"))
        .expect("command line");
    assert!(!whole.replacement.contains("ann"), "{}", whole.replacement);
    assert!(
        whole.replacement.contains("\\tool.exe "),
        "{}",
        whole.replacement
    );
    assert!(
        !whole.replacement.contains("secret"),
        "{}",
        whole.replacement
    );
}

#[test]
fn kept_categories_are_not_replaced() {
    let f = found(&["C:\\Users\\ann\\x", "USERNAME=ann"]);
    let mut o = opts();
    o.keep = vec![Category::Users];
    assert!(needles(&f, &o).needles().is_empty());
}

#[test]
fn secret_like_values_of_arguments_are_needles_too() {
    assert_eq!(
        secret_like("--token=s3cr3t-v4lue --verbose -k netsvcs"),
        ["--token=s3cr3t-v4lue", "s3cr3t-v4lue"]
    );
    assert!(secret_like("objectdirectory=\\windows /p:C:\\x\\y12345678").is_empty());
}

#[test]
fn an_argument_naming_the_image_is_no_needle_of_its_own() {
    let f = found(&["\"C:\\Apps\\SkypeBackgroundHost.exe\" -ServerName:SkypeBackgroundHost"]);
    let m = needles(&f, &opts());
    assert!(m.needles().iter().all(|n| n.key != "skypebackgroundhost"));
    let whole = m
        .needles()
        .iter()
        .find(|n| n.key.contains(".exe"))
        .expect("the command line");
    assert!(
        whole.replacement.contains("\\skypebackgroundhost.exe\" -"),
        "{}",
        whole.replacement
    );
}

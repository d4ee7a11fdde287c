// `Host` values a server on 127.0.0.1 must refuse (403 `forbidden_host`), one
// per class of foreign name a DNS-rebinding page or a sloppy guard could let
// through. Shared by the unit test `api::guard::tests::host_names` (through
// `include!`) and by `http_cross_site.rs`, which sends each to a running
// server: the two cannot drift apart. `*.localhost` is refused on purpose
// (docs/SECURITY.md, "Host names"): RFC 6761 lets resolvers send it to
// loopback, but not every resolver does, and nothing of ours needs it.
pub const FOREIGN_HOSTS: &[&str] = &[
    // suffix: a name that ends like ours
    "evil-localhost",
    "evil-localhost:8717",
    "attacker.localhost:8717",
    "a.localhost",
    "EVIL-LOCALHOST",
    // prefix: a name that starts like ours
    "localhost.evil",
    "localhost.attacker.example",
    "localhost-evil:8717",
    "127.0.0.1.evil.example",
    "127.0.0.1.nip.io",
    // look-alikes: a capital I for l, digit 0 for o, an IDN label
    "locaIhost",
    "l0calhost",
    "xn--lcalhost-9kd",
    "xn--localhost",
    // trailing dots beyond the one of a fully qualified name
    "localhost..",
    "localhost..:8717",
    // userinfo and port tricks
    "user@localhost",
    "localhost@attacker.example",
    "localhost:8717@attacker.example",
    "attacker.example:80@localhost",
    "localhost:",
    "localhost:abc",
    "localhost:8717:80",
    "localhost 8717",
    "localhost/evil",
    "localhost#",
    // IPv4 forms other than the dotted loopback range
    "0.0.0.0",
    "0.0.0.0:8717",
    "10.0.0.1:8717",
    "192.168.1.1",
    "2130706433",
    "0x7f000001",
    "0x7f.0.0.1",
    "0177.0.0.1",
    "127.1",
    "127.0.0.1.",
    "127.000.000.001",
    // IPv6 literals other than [::1]
    "[::]",
    "[::2]:1",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]:8717",
    "[0:0:0:0:0:0:0:2]",
    "[fe80::1]",
    "[::1",
    "::1",
    "[::1]x",
    "[::1]:",
    // foreign names in upper case
    "ATTACKER.EXAMPLE",
    "LOCALHOST.ATTACKER.EXAMPLE",
    "attacker.example",
    "",
];

/// `Host` values the same server must accept.
pub const OWN_HOSTS: &[&str] = &[
    "localhost",
    "LOCALHOST:8717",
    "LocalHost",
    "localhost.",
    "localhost.:8717",
    "127.0.0.1:1",
    "127.9.9.9",
    "[::1]:80",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
];

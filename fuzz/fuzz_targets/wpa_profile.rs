#![no_main]
//! Fuzz target `wpa_profile`: any bytes as a `.wpaProfile` through the
//! parser and the mapping onto a small catalog; must end normally (no
//! panic, hang or unbounded allocation) whatever the input.

use wpaprofile::map::{Catalog, CatalogColumn, Kind};

fn catalog() -> Catalog {
    let col = |name: &str, kind: Kind| CatalogColumn {
        name: name.to_string(),
        aliases: Vec::new(),
        // Instants never sum: the refusal path is fuzzed too.
        refused: if matches!(kind, Kind::Time) {
            vec!["sum".to_string()]
        } else {
            Vec::new()
        },
        kind,
        aggregation: "sum".to_string(),
    };
    let sampled = vec![
        col("Process", Kind::Text),
        col("Process Name", Kind::Text),
        col("Thread ID", Kind::Number),
        col("Stack", Kind::Stack),
        col("Stack Tag", Kind::Text),
        col("Time", Kind::Time),
        col("Weight", Kind::Duration),
        col("Count", Kind::Number),
        col("% Weight", Kind::Percent),
    ];
    Catalog {
        tables: vec![("cpu-sampled".to_string(), sampled)],
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(xml) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = wpaprofile::parse(xml) {
        for m in wpaprofile::map::map_profile(&p, &catalog()) {
            std::hint::black_box(m.summary());
        }
    }
});

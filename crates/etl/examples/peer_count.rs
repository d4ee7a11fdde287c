//! Print what the Python peer `etl-parser` should report for a trace, by our
//! reader: `<buffers> <events outside the header buffer>` (etl-parser skips
//! the header buffer's events), for `scripts/check-etl-parser.sh`.
//!
//! cargo run -p etl --example peer_count -- FILE.etl

use etl::census::Census;
use etl::EtlFile;
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: peer_count FILE.etl");
        return ExitCode::FAILURE;
    };
    let file = match EtlFile::open(Path::new(&path)) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let census = Census::of(&file);
    if !census.errors.is_empty() || census.skipped_buffers > 0 {
        eprintln!("{path}: our reader reports errors: {:?}", census.errors);
        return ExitCode::FAILURE;
    }
    let mut scratch = Vec::new();
    let header_events = match file.buffers().first() {
        Some(info) => match file.buffer_data(info, &mut scratch) {
            Ok(data) => etl::BufferData { info, data }.events().count() as u64,
            Err(_) => 0,
        },
        None => 0,
    };
    println!("{} {}", file.buffers().len(), census.events - header_events);
    ExitCode::SUCCESS
}

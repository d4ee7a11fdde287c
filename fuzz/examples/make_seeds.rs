//! Builds seed corpora for the fuzz targets from real traces, outside the
//! repository (trace bytes must never be committed):
//!
//!     cargo run --manifest-path fuzz/Cargo.toml --example make_seeds -- TRACES_DIR OUT_DIR
//!
//! Writes OUT_DIR/{etl_file,buffer_events,xca}/ (the `container` seeds are zips
//! made by scripts/fuzz-seeds.sh). Seeds are kept small (<= 64 KiB) so that
//! libFuzzer's default length limit stays useful.

use etl::buffer::BufferInfo;
use etl::EtlFile;
use std::fs;
use std::path::{Path, PathBuf};

const MAX_SEED: usize = 64 << 10;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(traces), Some(out)) = (args.get(1), args.get(2)) else {
        return Err("usage: make_seeds TRACES_DIR OUT_DIR".into());
    };
    let out = PathBuf::from(out);
    for t in ["etl_file", "buffer_events", "xca"] {
        fs::create_dir_all(out.join(t))?;
    }
    let mut paths: Vec<PathBuf> = fs::read_dir(traces)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "etl"))
        .collect();
    paths.sort();
    for path in paths {
        seeds_of(&path, &out)?;
    }
    Ok(())
}

fn seeds_of(path: &Path, out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("trace");
    let file = EtlFile::open(path)?;
    let raw = file.raw_bytes();
    let buffers = file.buffers();
    let whole = |b: &BufferInfo| {
        let start = b.offset as usize;
        raw.get(start..start + b.header.buffer_size as usize)
            .unwrap_or(&[])
    };
    // etl_file: the header buffer followed by one other buffer, for a spread
    // of buffers (small ones first), or the whole trace when it is small.
    if raw.len() <= MAX_SEED {
        fs::write(out.join("etl_file").join(format!("{stem}.etl")), raw)?;
    }
    let header = buffers.first().map(whole).unwrap_or(&[]);
    let mut by_size: Vec<&BufferInfo> = buffers.iter().skip(1).collect();
    by_size.sort_by_key(|b| b.header.buffer_size);
    by_size.dedup_by_key(|b| (b.header.buffer_size / 1024, b.header.is_compressed()));
    for b in pick(&by_size, 6) {
        let mut seed = header.to_vec();
        seed.extend_from_slice(whole(b));
        if seed.len() <= 2 * MAX_SEED {
            let name = format!("{stem}-hdr+buf{}.etl", b.index);
            fs::write(out.join("etl_file").join(name), seed)?;
        }
    }
    // buffer_events: decompressed event areas; xca: compressed data with the
    // expected output size in front.
    let mut scratch = Vec::new();
    for b in pick(&by_size, 8)
        .into_iter()
        .copied()
        .chain(buffers.first())
    {
        if let Ok(data) = file.buffer_data(b, &mut scratch) {
            let data = &data[..data.len().min(MAX_SEED)];
            let name = format!("{stem}-buf{}.bin", b.index);
            fs::write(out.join("buffer_events").join(name), data)?;
        }
        if b.header.is_compressed() {
            let mut seed = (b.header.payload_len() as u32).to_le_bytes().to_vec();
            seed.extend_from_slice(raw.get(b.data_range()).unwrap_or(&[]));
            let name = format!("{stem}-buf{}.xca", b.index);
            fs::write(out.join("xca").join(name), seed)?;
        }
    }
    Ok(())
}

/// Up to `n` items spread evenly over `v`.
fn pick<T>(v: &[T], n: usize) -> Vec<&T> {
    if v.len() <= n {
        return v.iter().collect();
    }
    (0..n)
        .filter_map(|i| v.get(i * (v.len() - 1) / (n - 1)))
        .collect()
}

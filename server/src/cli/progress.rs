//! Progress bars on stderr for long CLI work (hidden when stderr is not a
//! terminal, so piped output stays clean).

use indicatif::{ProgressBar, ProgressStyle};
use model::progress::BuildProgress;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Build the model of `file`, showing bytes read and events while it runs.
pub fn build_model(file: &etl::EtlFile) -> model::Trace {
    let progress = BuildProgress::default();
    let bar = ProgressBar::new(file.file_len());
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg:>12} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let trace = std::thread::scope(|s| {
        let worker = s.spawn(|| model::build_with_progress(file, &progress));
        while !worker.is_finished() {
            bar.set_position(progress.bytes_done.load(Ordering::Relaxed));
            bar.set_message(format!(
                "{} {}k ev",
                progress.phase_name(),
                progress.events.load(Ordering::Relaxed) / 1000
            ));
            std::thread::sleep(Duration::from_millis(100));
        }
        worker.join()
    });
    bar.finish_and_clear();
    match trace {
        Ok(t) => t,
        Err(p) => std::panic::resume_unwind(p),
    }
}

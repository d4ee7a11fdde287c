//! Progress bars on stderr for long CLI work (hidden when stderr is not a
//! terminal, so piped output stays clean).

use indicatif::{HumanBytes, ProgressBar, ProgressStyle};
use model::progress::BuildProgress;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Build the model of `file`, showing bytes read and events while it runs.
pub fn build_model(file: &etl::EtlFile) -> model::Trace {
    let progress = BuildProgress::default();
    // Positions are tenths of a percent of the whole build (both phases),
    // so the bar does not sit full while the correlating pass runs.
    let bar = ProgressBar::new(1000);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {percent}%")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let trace = std::thread::scope(|s| {
        let worker = s.spawn(|| model::build_with_progress(file, &progress));
        while !worker.is_finished() {
            bar.set_position((progress.fraction() * 1000.0) as u64);
            bar.set_message(status_line(&progress));
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

/// Phase, bytes read of the total, events and the time left, e.g.
/// `reading 1.2 GiB/2.2 GiB, 9000k events, 12 s left`.
fn status_line(p: &BuildProgress) -> String {
    let left = match p.seconds_left() {
        Some(s) => format!(", {} s left", s.ceil() as u64),
        None => String::new(),
    };
    format!(
        "{} {}/{}, {}k events{left}",
        p.phase_name(),
        HumanBytes(p.bytes_done.load(Ordering::Relaxed)),
        HumanBytes(p.bytes_total.load(Ordering::Relaxed)),
        p.events.load(Ordering::Relaxed) / 1000
    )
}

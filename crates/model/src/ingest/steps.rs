//! What each step of a live snapshot's build costs (wall and CPU time), for
//! the live bench and the server's log: the steps whose cost grows with
//! the trace are the ones to make incremental.

use std::time::Instant;

/// Marks taken after each step; off (no clock read at all) unless made with
/// `StepTimes::on`.
#[derive(Debug, Clone, Default)]
pub struct StepTimes {
    /// This process's CPU time in ms (the caller's: the model has no libc).
    cpu: Option<fn() -> f64>,
    last: Option<(Instant, f64)>,
    /// (step, wall ms, CPU ms) in the order they ran.
    pub steps: Vec<(&'static str, f64, f64)>,
}

impl StepTimes {
    /// Timings from now; `cpu` reads the process's CPU time in ms.
    pub fn on(cpu: fn() -> f64) -> StepTimes {
        StepTimes {
            cpu: Some(cpu),
            last: Some((Instant::now(), cpu())),
            steps: Vec::new(),
        }
    }

    /// The step that ends now.
    pub fn mark(&mut self, step: &'static str) {
        let (Some(cpu), Some((wall0, cpu0))) = (self.cpu, self.last) else {
            return;
        };
        let (wall, now) = (Instant::now(), cpu());
        let ms = wall.duration_since(wall0).as_secs_f64() * 1e3;
        self.steps.push((step, ms, now - cpu0));
        self.last = Some((wall, now));
    }

    /// "step cpu/wall ms, ..." for a log line.
    pub fn line(&self) -> String {
        let s: Vec<String> = self
            .steps
            .iter()
            .map(|(n, w, c)| format!("{n} {c:.0}/{w:.0}"))
            .collect();
        s.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_records_nothing_and_on_records_each_step() {
        let mut off = StepTimes::default();
        off.mark("a");
        assert!(off.steps.is_empty());
        let mut on = StepTimes::on(|| 1.0);
        on.mark("a");
        on.mark("b");
        let names: Vec<_> = on.steps.iter().map(|s| s.0).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(on.steps.iter().all(|s| s.2 == 0.0 && s.1 >= 0.0));
    }
}

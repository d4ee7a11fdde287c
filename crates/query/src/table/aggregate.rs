//! Aggregation modes of value columns (right of WPA's gold bar) and the
//! accumulator that computes them. A group's accumulator is the merge of
//! its children's, so a group row always equals the aggregate of its rows.
//! Values are `i64`: numbers in the column's base unit, or the dense key of
//! a text (so Unique Count and the single-value mode work on both).

use rustc_hash::FxHashSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Aggregation {
    Sum,
    Min,
    Max,
    Avg,
    /// Rows with a value.
    Count,
    /// Distinct values.
    UniqueCount,
    /// The value when the rows have one; else, for text, the count of
    /// distinct values (what WPA shows for text), and for numbers (ids,
    /// times, addresses) nothing: a count there would read as an id or a
    /// time.
    Single,
}

impl Aggregation {
    pub const ALL: [Aggregation; 7] = [
        Aggregation::Sum,
        Aggregation::Min,
        Aggregation::Max,
        Aggregation::Avg,
        Aggregation::Count,
        Aggregation::UniqueCount,
        Aggregation::Single,
    ];

    /// The name in `COL:AGG` specs (CLI and API).
    pub fn name(self) -> &'static str {
        match self {
            Aggregation::Sum => "sum",
            Aggregation::Min => "min",
            Aggregation::Max => "max",
            Aggregation::Avg => "avg",
            Aggregation::Count => "count",
            Aggregation::UniqueCount => "unique",
            Aggregation::Single => "single",
        }
    }

    pub fn from_name(name: &str) -> Option<Aggregation> {
        let n = name
            .trim()
            .to_ascii_lowercase()
            .replace([' ', '_', '-'], "");
        match n.as_str() {
            "uniquecount" => Some(Aggregation::UniqueCount),
            "average" => Some(Aggregation::Avg),
            _ => Aggregation::ALL.into_iter().find(|a| a.name() == n),
        }
    }

    /// Only numbers can be summed, averaged or ordered into a min/max.
    pub fn needs_numbers(self) -> bool {
        matches!(
            self,
            Aggregation::Sum | Aggregation::Min | Aggregation::Max | Aggregation::Avg
        )
    }

    fn needs_distinct(self) -> bool {
        matches!(self, Aggregation::UniqueCount | Aggregation::Single)
    }
}

/// An aggregate, before the column gives it a unit or a text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AggValue {
    /// No row had a value (Min, Max, Avg, Single of nothing).
    Empty,
    /// A count (Count, Unique Count).
    Count(u64),
    /// Single over this many distinct values: no single value.
    Several(u64),
    /// A value of the column (Sum, Min, Max; Single over one value).
    Value(i64),
    /// Avg, in the column's base unit.
    Float(f64),
}

/// Accumulates one value column of one group.
#[derive(Debug, Clone)]
pub struct Acc {
    n: u64,
    sum: i128,
    min: i64,
    max: i64,
    distinct: Option<FxHashSet<i64>>,
    /// Distinct values counted by the caller (row_dense's bitmaps) instead
    /// of kept in `distinct`: such an accumulator is final, never merged.
    counted: Option<u64>,
}

impl Acc {
    pub fn new(agg: Aggregation) -> Acc {
        Acc {
            n: 0,
            sum: 0,
            min: i64::MAX,
            max: i64::MIN,
            distinct: agg.needs_distinct().then(FxHashSet::default),
            counted: None,
        }
    }

    /// `n` values, least `min`, of which `distinct` are distinct (counted
    /// by the caller): enough for `finish` of Unique Count and Single.
    pub(crate) fn of_distinct(n: u64, min: i64, distinct: u64) -> Acc {
        Acc {
            n,
            min,
            distinct: None,
            counted: Some(distinct),
            ..Acc::new(Aggregation::Count)
        }
    }

    /// A Sum of `n` values totalling `sum`, for a caller that summed them
    /// itself (min and max are not kept: only `finish(Sum)` may read it).
    pub(crate) fn of_sum(n: u64, sum: i64) -> Acc {
        Acc {
            n,
            sum: i128::from(sum),
            ..Acc::new(Aggregation::Sum)
        }
    }

    /// `n` values of sum `sum`, least `min` and greatest `max`, for a
    /// caller that kept only what `finish(agg)` reads (row_dense's records).
    pub(crate) fn of_parts(agg: Aggregation, n: u64, sum: i128, min: i64, max: i64) -> Acc {
        Acc {
            n,
            sum,
            min,
            max,
            ..Acc::new(agg)
        }
    }

    #[inline]
    pub fn add(&mut self, v: i64) {
        self.n += 1;
        self.sum += i128::from(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        if let Some(d) = &mut self.distinct {
            d.insert(v);
        }
    }

    /// `n` rows at once, of sum `sum`, least `min` and greatest `max`;
    /// `value` is their one value when they share it (for distinct counts).
    #[inline]
    pub fn add_group(&mut self, n: u64, sum: i128, min: i64, max: i64, value: Option<i64>) {
        if n == 0 {
            return;
        }
        self.n += n;
        self.sum += sum;
        self.min = self.min.min(min);
        self.max = self.max.max(max);
        if let (Some(d), Some(v)) = (&mut self.distinct, value) {
            d.insert(v);
        }
    }

    pub fn merge(&mut self, o: &Acc) {
        self.n += o.n;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        if let (Some(d), Some(od)) = (&mut self.distinct, &o.distinct) {
            d.extend(od.iter().copied());
        }
    }

    pub fn finish(&self, agg: Aggregation) -> AggValue {
        let distinct = || {
            self.counted
                .unwrap_or_else(|| self.distinct.as_ref().map_or(0, |d| d.len() as u64))
        };
        match agg {
            Aggregation::Count => AggValue::Count(self.n),
            Aggregation::UniqueCount => AggValue::Count(distinct()),
            Aggregation::Sum => {
                AggValue::Value(self.sum.clamp(i64::MIN.into(), i64::MAX.into()) as i64)
            }
            _ if self.n == 0 => AggValue::Empty,
            Aggregation::Min => AggValue::Value(self.min),
            Aggregation::Max => AggValue::Value(self.max),
            Aggregation::Avg => AggValue::Float(self.sum as f64 / self.n as f64),
            Aggregation::Single => match distinct() {
                1 => AggValue::Value(self.min),
                n => AggValue::Several(n),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_over_a_few_values() {
        let fin = |agg, vals: &[i64]| {
            let mut a = Acc::new(agg);
            vals.iter().for_each(|&v| a.add(v));
            a.finish(agg)
        };
        let v = [5, -2, 5, 9];
        assert_eq!(fin(Aggregation::Sum, &v), AggValue::Value(17));
        assert_eq!(fin(Aggregation::Min, &v), AggValue::Value(-2));
        assert_eq!(fin(Aggregation::Max, &v), AggValue::Value(9));
        assert_eq!(fin(Aggregation::Avg, &v), AggValue::Float(4.25));
        assert_eq!(fin(Aggregation::Count, &v), AggValue::Count(4));
        assert_eq!(fin(Aggregation::UniqueCount, &v), AggValue::Count(3));
        assert_eq!(fin(Aggregation::Single, &v), AggValue::Several(3));
        assert_eq!(fin(Aggregation::Single, &[7, 7]), AggValue::Value(7));
        assert_eq!(fin(Aggregation::Max, &[]), AggValue::Empty);
        assert_eq!(fin(Aggregation::Sum, &[]), AggValue::Value(0));
    }

    #[test]
    fn names_round_trip() {
        for a in Aggregation::ALL {
            assert_eq!(Aggregation::from_name(a.name()), Some(a));
        }
        assert_eq!(
            Aggregation::from_name("Unique Count"),
            Some(Aggregation::UniqueCount)
        );
    }
}

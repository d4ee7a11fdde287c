//! Constraints SQLite offers a virtual table (`WHERE pid = 6148 AND
//! time >= 7e9`), chosen in `best_index` and applied by the scan itself: a
//! sorted column narrows the rows read by binary search, the others are
//! tested in Rust before SQLite sees the row. SQLite still re-checks each
//! (`omit` stays false), so a constraint the scan skips (a value of another
//! type, say) costs speed, never a wrong answer.

use rusqlite::types::Value;
use rusqlite::vtab::{IndexConstraintOp, IndexInfo};
use std::cmp::Ordering;

/// A comparison the scans apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    fn of(op: IndexConstraintOp) -> Option<Op> {
        Some(match op {
            IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_EQ => Op::Eq,
            IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_GT => Op::Gt,
            IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_GE => Op::Ge,
            IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_LT => Op::Lt,
            IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_LE => Op::Le,
            _ => return None,
        })
    }

    fn code(self) -> char {
        match self {
            Op::Eq => 'e',
            Op::Gt => 'g',
            Op::Ge => 'G',
            Op::Lt => 'l',
            Op::Le => 'L',
        }
    }

    fn from_code(c: char) -> Option<Op> {
        Some(match c {
            'e' => Op::Eq,
            'g' => Op::Gt,
            'G' => Op::Ge,
            'l' => Op::Lt,
            'L' => Op::Le,
            _ => return None,
        })
    }

    /// Whether `ord` (the cell against the value) satisfies the comparison.
    pub fn holds(self, ord: Ordering) -> bool {
        match self {
            Op::Eq => ord == Ordering::Equal,
            Op::Gt => ord == Ordering::Greater,
            Op::Ge => ord != Ordering::Less,
            Op::Lt => ord == Ordering::Less,
            Op::Le => ord != Ordering::Greater,
        }
    }
}

/// A constraint the scan applies: column (SQL column index) and operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pushed {
    pub column: usize,
    pub op: Op,
}

/// What a column takes: `Op`s on numbers, equality on text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    Nothing,
    Compare,
    Equality,
}

/// Chooses the usable constraints `takes` accepts, numbers their values
/// for `filter` and records them in the plan's idx_str (`3e,5G`); fewer
/// rows expected the more constraints (SQLite compares plans of joins).
pub fn plan(info: &mut IndexInfo, rows: usize, takes: impl Fn(usize) -> Takes) {
    let mut chosen = Vec::new();
    let mut estimate = rows.max(1) as f64;
    for (c, mut usage) in info.constraints_and_usages() {
        if !c.is_usable() || c.column() < 0 {
            continue;
        }
        let column = c.column() as usize;
        let Some(op) = Op::of(c.operator()) else {
            continue;
        };
        let ok = match takes(column) {
            Takes::Compare => true,
            Takes::Equality => op == Op::Eq,
            Takes::Nothing => false,
        };
        if !ok {
            continue;
        }
        chosen.push(Pushed { column, op });
        usage.set_argv_index(chosen.len() as i32);
        usage.set_omit(false);
        estimate /= if op == Op::Eq { 20.0 } else { 3.0 };
    }
    let text: Vec<String> = chosen
        .iter()
        .map(|p| format!("{}{}", p.column, p.op.code()))
        .collect();
    info.set_idx_str(&text.join(","));
    info.set_estimated_cost(estimate.max(1.0));
    info.set_estimated_rows(estimate.max(1.0) as i64);
}

/// The constraints of a plan made by `plan`, in argument order.
pub fn decode(idx_str: Option<&str>) -> Vec<Pushed> {
    let Some(s) = idx_str else {
        return Vec::new();
    };
    s.split(',')
        .filter_map(|p| {
            let op = Op::from_code(p.chars().last()?)?;
            let column = p.get(..p.len() - 1)?.parse().ok()?;
            Some(Pushed { column, op })
        })
        .collect()
}

/// An argument as an exact integer (an integral real too), else None: the
/// scan then leaves the constraint to SQLite.
pub fn integer(v: &Value) -> Option<i64> {
    match *v {
        Value::Integer(i) => Some(i),
        Value::Real(r) if r.fract() == 0.0 && r.abs() < 9.0e18 => Some(r as i64),
        _ => None,
    }
}

/// The rows `lo..hi` of a sorted column `v` that satisfy `op value`.
pub fn sorted_range(v: &[i64], op: Op, value: i64, lo: usize, hi: usize) -> (usize, usize) {
    let hi = hi.min(v.len());
    let lo = lo.min(hi);
    let part = &v[lo..hi];
    let first_ge = lo + part.partition_point(|&x| x < value);
    let first_gt = lo + part.partition_point(|&x| x <= value);
    match op {
        Op::Eq => (first_ge, first_gt),
        Op::Gt => (first_gt, hi),
        Op::Ge => (first_ge, hi),
        Op::Lt => (lo, first_ge),
        Op::Le => (lo, first_gt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_round_trip() {
        let p = decode(Some("3e,12G,0l"));
        assert_eq!(
            p,
            [
                Pushed {
                    column: 3,
                    op: Op::Eq
                },
                Pushed {
                    column: 12,
                    op: Op::Ge
                },
                Pushed {
                    column: 0,
                    op: Op::Lt
                }
            ]
        );
        assert!(decode(Some("")).is_empty());
        assert!(decode(Some("x,3")).is_empty());
    }

    #[test]
    fn sorted_ranges() {
        let v = [1, 2, 2, 2, 5, 9];
        assert_eq!(sorted_range(&v, Op::Eq, 2, 0, 6), (1, 4));
        assert_eq!(sorted_range(&v, Op::Gt, 2, 0, 6), (4, 6));
        assert_eq!(sorted_range(&v, Op::Ge, 2, 0, 6), (1, 6));
        assert_eq!(sorted_range(&v, Op::Lt, 5, 0, 6), (0, 4));
        assert_eq!(sorted_range(&v, Op::Le, 5, 0, 6), (0, 5));
        assert_eq!(sorted_range(&v, Op::Ge, 3, 2, 6), (4, 6));
        assert_eq!(sorted_range(&v, Op::Eq, 7, 0, 99), (5, 5));
    }
}

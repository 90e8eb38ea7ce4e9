//! Parsers of command-line values that several commands share.

use std::time::Duration;

/// `--shard I/N` (0-based: run items whose number is I modulo N).
pub fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let (i, n) = s
        .split_once('/')
        .ok_or_else(|| format!("{s:?}: expected I/N, e.g. 0/4"))?;
    let i: u64 = i
        .trim()
        .parse()
        .map_err(|_| format!("{s:?}: I is not a number"))?;
    let n: u64 = n
        .trim()
        .parse()
        .map_err(|_| format!("{s:?}: N is not a number"))?;
    if n == 0 || i >= n {
        return Err(format!("{s:?}: need 0 <= I < N"));
    }
    Ok((i, n))
}

/// A positive number of seconds (`--timeout 30`, `0.5`).
pub fn parse_secs(s: &str) -> Result<Duration, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !(v > 0.0 && v < 1e6) {
        return Err(format!("{s:?}: expected a positive number of seconds"));
    }
    Ok(Duration::from_secs_f64(v))
}

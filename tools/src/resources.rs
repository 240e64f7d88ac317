//! The machine's resources and the budgets of long commands: `--memory SIZE`, the memory the
//! machine has, the free disk of a directory, and byte counts people read.

use std::path::Path;

/// Memory kept back from the machine's total when no `--memory` is given: a tenth, at least
/// 512 MiB (the system, the page cache of the files a job reads, other programs).
pub fn default_margin(total: u64) -> u64 {
    (total / 10).max(512 << 20)
}

/// Parses a size such as `6G`, `6GB`, `6GiB`, `512M`, `1.5g` or a plain number of bytes. `K`,
/// `M`, `G`, `T` are powers of 1024, as `free -h` and `/usr/bin/time` count.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let bad = || format!("{s:?} is not a size (such as 6G, 512M or 1.5G)");
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let x: f64 = num.parse().map_err(|_| bad())?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit.trim_end_matches("ib").trim_end_matches('b');
    let mult: u64 = match unit {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return Err(bad()),
    };
    let bytes = x * mult as f64;
    if !bytes.is_finite() || !(1.0..=1e18).contains(&bytes) {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// A byte count as people read it: `4.67 GB`, `66 MB`, `512 KB` (powers of 1000, as the
/// measurements in docs/ give them).
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else {
        format!("{:.0} KB", (b / 1e3).max(1.0))
    }
}

/// A duration in seconds as people read it: `42 s`, `16 min`, `2.5 h`.
pub fn human_secs(secs: f64) -> String {
    if secs < 90.0 {
        format!("{:.0} s", secs.max(1.0))
    } else if secs < 5400.0 {
        format!("{:.0} min", secs / 60.0)
    } else {
        format!("{:.1} h", secs / 3600.0)
    }
}

/// The machine's memory in bytes (Linux: `MemTotal` of `/proc/meminfo`; `None` elsewhere).
pub fn total_memory() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The memory budget: `--memory` if given, else the machine's memory less a margin (and, where
/// the machine's memory is unknown, no limit). Returns the budget and how it was found.
pub fn memory_budget(arg: Option<&str>) -> Result<(Option<u64>, String), String> {
    if let Some(a) = arg {
        let b = parse_size(a).map_err(|e| format!("--memory: {e}"))?;
        return Ok((Some(b), format!("--memory {a}")));
    }
    Ok(match total_memory() {
        Some(t) => (
            Some(t - default_margin(t)),
            format!(
                "the machine's {} less {} (give --memory SIZE to change it)",
                human(t),
                human(default_margin(t))
            ),
        ),
        None => (None, "no limit (the machine's memory is unknown)".into()),
    })
}

/// Free bytes on the file system of `dir` (or of its nearest existing parent); `None` where
/// it cannot be found.
#[cfg(unix)]
pub fn free_disk(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let mut p = dir;
    while !p.exists() {
        p = p.parent()?;
    }
    let p = if p.as_os_str().is_empty() {
        Path::new(".")
    } else {
        p
    };
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a writable statvfs that outlives the call.
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
    (rc == 0).then(|| st.f_bavail as u64 * st.f_frsize as u64)
}

/// Free bytes on the file system of `dir`: unknown on this platform.
#[cfg(not(unix))]
pub fn free_disk(_dir: &Path) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("6G"), Ok(6 << 30));
        assert_eq!(parse_size("6GiB"), Ok(6 << 30));
        assert_eq!(parse_size("6gb"), Ok(6 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("1000"), Ok(1000));
        for bad in ["", "G", "6X", "-1G", "0", "1e400", "six"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn readable() {
        assert_eq!(human(4_670_000_000), "4.67 GB");
        assert_eq!(human(66_000_000), "66 MB");
        assert_eq!(human_secs(958.0), "16 min");
        assert_eq!(human_secs(12.9), "13 s");
    }

    #[test]
    fn free_disk_of_a_missing_directory_is_its_parents() {
        if cfg!(unix) {
            let d = std::env::temp_dir().join("millstone-no-such-dir/a/b");
            assert!(free_disk(&d).is_some());
        }
    }
}

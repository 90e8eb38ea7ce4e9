//! Measuring child processes: wall time, CPU time and peak resident set
//! (`wait4`), for `bench` and for the tests that bound a command's memory.

use std::process::Command;
use std::time::{Duration, Instant};

/// Wall time, CPU time and peak resident set of one measured run of child
/// processes.
#[derive(Clone, Copy)]
pub struct Run {
    /// Wall time from the first start to the last exit.
    pub wall: Duration,
    /// User and system time of the processes together (less sensitive than
    /// wall time to other load on the machine).
    pub cpu: Duration,
    /// Largest peak resident set of the processes, in bytes.
    pub max_rss: u64,
}

/// Waits for `pid` and returns its exit status, its user + system time and
/// its peak resident set in bytes (`wait4`'s `ru_maxrss`, in KiB on Linux).
pub fn wait_rusage(pid: u32) -> Result<(i32, Duration, u64), String> {
    let pid = libc::pid_t::try_from(pid).map_err(|_| "pid out of range".to_owned())?;
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed rusage is a valid value of this plain C struct.
    #[allow(unsafe_code)]
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is our own child (not yet waited for; `Child::wait`
        // is never called on it), and both out-pointers are valid.
        #[allow(unsafe_code)]
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("wait4: {e}"));
        }
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    Ok((
        code,
        time(usage.ru_utime) + time(usage.ru_stime),
        u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024,
    ))
}

/// Runs one command (its standard streams as the caller set them) and
/// returns the run and its exit status.
pub fn run_one(cmd: &mut Command) -> Result<(Run, i32), String> {
    let t = Instant::now();
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    let (code, cpu, max_rss) = wait_rusage(child.id())?;
    Ok((
        Run {
            wall: t.elapsed(),
            cpu,
            max_rss,
        },
        code,
    ))
}

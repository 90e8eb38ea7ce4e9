//! Asking an installed `llc` which processors it knows.

use std::path::Path;
use std::process::{Command, Stdio};

/// The processor names of `llc -march=ARCH -mcpu=help` (printed on stderr
/// between "Available CPUs" and "Available features").
pub fn cpu_list(llc: &Path, arch: &str) -> Result<Vec<String>, String> {
    let out = Command::new(llc)
        .args([format!("-march={arch}"), "-mcpu=help".into()])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", llc.display()))?;
    let text = String::from_utf8_lossy(&out.stderr);
    let names: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("Available CPUs"))
        .skip(1)
        .take_while(|l| !l.starts_with("Available features"))
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(' ')?;
            rest.trim_start().starts_with('-').then(|| name.to_owned())
        })
        .collect();
    if names.is_empty() {
        return Err(format!(
            "{} -march={arch} -mcpu=help listed no CPU",
            llc.display()
        ));
    }
    Ok(names)
}

//! A solved sub-space in memory, and its file format.
//!
//! A file is a 32-byte header followed by the payload, all little-endian:
//!
//! | offset | size | field                                              |
//! |--------|------|----------------------------------------------------|
//! | 0      | 8    | magic `MILLTB\r\n` (the line ending catches text-mode copies) |
//! | 8      | 2    | format version ([`VERSION`])                       |
//! | 10     | 1    | variant: 9 or 12                                   |
//! | 11     | 1    | flying: 0 or 1                                     |
//! | 12     | 1    | w, pieces of the side to move                      |
//! | 13     | 1    | b, pieces of the other side                        |
//! | 14     | 2    | reserved, 0                                        |
//! | 16     | 8    | entry count                                        |
//! | 24     | 8    | FNV-1a 64 of the payload bytes                     |
//! | 32     | 2n   | one [`Value::to_u16`] per slot, in index order     |

use super::index::SubIndex;
use super::value::Value;
use crate::types::{Rules, Variant};
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// File magic.
pub const MAGIC: [u8; 8] = *b"MILLTB\r\n";
/// File format version.
pub const VERSION: u16 = 1;
/// Header size in bytes.
pub const HEADER_LEN: usize = 32;

/// Why a table could not be read or written.
#[derive(Debug)]
pub enum TbError {
    /// The file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// The file is not a table of the expected sub-space, or is damaged.
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TbError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TbError::Format { path, reason } => {
                write!(f, "{}: not a valid table: {reason}", path.display())
            }
        }
    }
}

impl std::error::Error for TbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TbError::Io { source, .. } => Some(source),
            TbError::Format { .. } => None,
        }
    }
}

/// FNV-1a, 64 bits: enough to catch damaged files, and a few lines instead of a dependency.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The file name of a sub-space, such as `nine-fly-3v4.mtb`.
pub fn file_name(rules: Rules, w: u8, b: u8) -> String {
    format!(
        "{}-{}-{w}v{b}.mtb",
        rules.variant.name(),
        if rules.flying { "fly" } else { "nofly" }
    )
}

/// The values of every position of one sub-space.
#[derive(Clone)]
pub struct Table {
    /// The rules the table was solved under.
    pub rules: Rules,
    /// Pieces of the side to move.
    pub w: u8,
    /// Pieces of the other side.
    pub b: u8,
    index: SubIndex,
    entries: Vec<u16>,
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Table({} {}v{}, {} entries)",
            self.rules,
            self.w,
            self.b,
            self.entries.len()
        )
    }
}

impl Table {
    /// A table from its entries; panics if the count does not fit the sub-space.
    pub fn from_entries(rules: Rules, w: u8, b: u8, entries: Vec<u16>) -> Table {
        let index = SubIndex::new(rules.variant, w, b);
        assert_eq!(entries.len(), index.len(), "entry count of {w}v{b}");
        Table {
            rules,
            w,
            b,
            index,
            entries,
        }
    }

    /// The index of the sub-space.
    pub fn index(&self) -> &SubIndex {
        &self.index
    }

    /// The raw entries, one per slot.
    pub fn entries(&self) -> &[u16] {
        &self.entries
    }

    /// The value of the position with piece sets `us` (to move) and `them`.
    #[inline]
    pub fn get(&self, us: u32, them: u32) -> Value {
        let v = self.entries[self.index.index(us, them) as usize];
        Value::from_u16(v).expect("entries were checked when the table was built or read")
    }

    /// The payload as bytes.
    fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.entries.len() * 2);
        for &e in &self.entries {
            out.extend_from_slice(&e.to_le_bytes());
        }
        out
    }

    /// The file image: header and payload.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(self.rules.variant.pieces());
        out.push(self.rules.flying as u8);
        out.push(self.w);
        out.push(self.b);
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        out.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// Writes the table to `path` atomically: to a temporary name first, then renamed, so an
    /// interrupted run never leaves a file that looks complete.
    pub fn write(&self, path: &Path) -> Result<(), TbError> {
        let tmp = path.with_extension("mtb.tmp");
        let io_err = |p: &Path, e| TbError::Io {
            path: p.to_path_buf(),
            source: e,
        };
        let mut f = fs::File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
        f.write_all(&self.to_bytes()).map_err(|e| io_err(&tmp, e))?;
        f.sync_all().map_err(|e| io_err(&tmp, e))?;
        drop(f);
        fs::rename(&tmp, path).map_err(|e| io_err(path, e))
    }

    /// Parses a file image, checking that it is the table of sub-space (w, b) under `rules`.
    pub fn from_bytes(
        bytes: &[u8],
        rules: Rules,
        w: u8,
        b: u8,
        path: &Path,
    ) -> Result<Table, TbError> {
        let bad = |reason: String| TbError::Format {
            path: path.to_path_buf(),
            reason,
        };
        if bytes.len() < HEADER_LEN {
            return Err(bad(format!(
                "{} bytes, shorter than the header",
                bytes.len()
            )));
        }
        if bytes[0..8] != MAGIC {
            return Err(bad("wrong magic".into()));
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != VERSION {
            return Err(bad(format!("format version {version}, expected {VERSION}")));
        }
        let variant = match bytes[10] {
            9 => Variant::Nine,
            12 => Variant::Twelve,
            v => return Err(bad(format!("unknown variant code {v}"))),
        };
        let flying = match bytes[11] {
            0 => false,
            1 => true,
            v => return Err(bad(format!("bad flying flag {v}"))),
        };
        let found = Rules::new(variant, flying);
        if found != rules || bytes[12] != w || bytes[13] != b {
            return Err(bad(format!(
                "holds {} {}v{}, expected {} {w}v{b}",
                found, bytes[12], bytes[13], rules
            )));
        }
        let index = SubIndex::new(variant, w, b);
        let count = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
        if count != index.len() as u64 {
            return Err(bad(format!(
                "entry count {count}, the sub-space has {}",
                index.len()
            )));
        }
        let payload = &bytes[HEADER_LEN..];
        if payload.len() as u64 != 2 * count {
            return Err(bad(format!(
                "payload of {} bytes, expected {} (truncated or padded)",
                payload.len(),
                2 * count
            )));
        }
        let sum = u64::from_le_bytes(bytes[24..32].try_into().expect("8 bytes"));
        if fnv1a64(payload) != sum {
            return Err(bad("checksum mismatch (the file is damaged)".into()));
        }
        let mut entries = Vec::with_capacity(count as usize);
        for (i, c) in payload.chunks_exact(2).enumerate() {
            let e = u16::from_le_bytes([c[0], c[1]]);
            if Value::from_u16(e).is_none() {
                return Err(bad(format!("entry {i} holds the invalid code {e:#06x}")));
            }
            entries.push(e);
        }
        Ok(Table {
            rules,
            w,
            b,
            index,
            entries,
        })
    }

    /// Reads and checks the table of sub-space (w, b) from `path`.
    pub fn read(path: &Path, rules: Rules, w: u8, b: u8) -> Result<Table, TbError> {
        let bytes = fs::read(path).map_err(|e| TbError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        Table::from_bytes(&bytes, rules, w, b, path)
    }
}

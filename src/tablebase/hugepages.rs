//! Large arrays backed by huge pages where the kernel offers them.
//!
//! The generator touches slots of billion-entry arrays in random order; with 4 KB pages nearly
//! every such access also misses the TLB. Linux hands out 2 MB pages for memory marked with
//! `madvise(MADV_HUGEPAGE)` before it is first touched (the usual `transparent_hugepage`
//! setting is "madvise"), which removes most of those misses. Elsewhere this is a plain `Vec`.

/// A vector of `n` copies of `fill`, its buffer marked for huge pages before it is written.
pub fn filled<T: Copy + Send + Sync>(n: usize, fill: T) -> Vec<T> {
    use rayon::prelude::*;
    let mut v: Vec<T> = Vec::with_capacity(n);
    advise(v.as_mut_ptr().cast::<u8>(), n * std::mem::size_of::<T>());
    // Written by all threads: first touch is where the pages are allocated.
    v.spare_capacity_mut()
        .par_chunks_mut(1 << 16)
        .for_each(|c| {
            c.iter_mut().for_each(|x| {
                x.write(fill);
            })
        });
    // SAFETY: every element of the capacity was just initialised.
    unsafe { v.set_len(n) };
    v
}

/// Gives the memory freed so far back to the system. The update buffers are many vectors of
/// tens to hundreds of kilobytes, which glibc serves from its per-thread arenas and keeps after
/// they are freed: without this, a run of jobs peaked half a gigabyte above one job alone
/// (7v9: 6.23 GB against 5.68 GB).
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator's heaps to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(target_os = "linux")]
fn advise(ptr: *mut u8, len: usize) {
    const HUGE: usize = 2 << 20;
    // Only big buffers have whole huge pages in them; madvise needs a page-aligned start.
    if len < 2 * HUGE {
        return;
    }
    let start = (ptr as usize).next_multiple_of(4096);
    let end = ptr as usize + len;
    // SAFETY: the range lies inside an allocation we own; the advice changes no contents.
    let rc = unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    if rc != 0 {
        log::debug!(
            "madvise(MADV_HUGEPAGE) failed: {}",
            std::io::Error::last_os_error()
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_ptr: *mut u8, _len: usize) {}

#[cfg(test)]
mod tests {
    #[test]
    fn filled_holds_the_fill() {
        for n in [0, 1, 1000, 5 << 20] {
            let v = super::filled(n, 0xabcdu16);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 0xabcd));
        }
    }
}

/** Small state files published atomically (temp file, fsync, rename, fsync of the directory): one helper for every module that keeps state on disk. */
package dev.logpipe.config.files;

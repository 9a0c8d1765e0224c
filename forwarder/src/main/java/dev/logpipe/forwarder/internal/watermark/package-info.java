/** Per-file watermarks: their format, atomic persistence, the process lock and the published-offsets journal. */
package dev.logpipe.forwarder.internal.watermark;

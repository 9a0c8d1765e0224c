/** The archive tier: the archiver (write, verify, catalogue, then delete the hot day), its catalog, policy, schedule and retention, and the read seam over hot shards and archives together. */
package dev.logpipe.archive.tier;

/** Where archives are kept: the object-store seam, a local directory and any S3-compatible store. */
package dev.logpipe.archive.store;

/** The {@code archive} section of a role's configuration: {@link dev.logpipe.archive.config.ArchiveSettings}. */
package dev.logpipe.archive.config;

/**
 * The collector's configuration as validated records ({@code CollectorConfig}, {@code SyslogConfig}), read from YAML
 * with every error naming its key path.
 */
package dev.logpipe.collector.config;

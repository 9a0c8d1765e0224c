/**
 * Validated reading of YAML configuration ({@code ConfigNode}: typed values, key-path errors), shared by every role
 * that reads a config file.
 */
package dev.logpipe.config;

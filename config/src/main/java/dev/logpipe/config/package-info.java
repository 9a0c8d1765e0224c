/**
 * Validated reading of YAML configuration ({@code ConfigNode}: typed values, key-path errors) and a role process's
 * lifecycle under a stop deadline, shared by every role that reads a config file.
 */
package dev.logpipe.config;

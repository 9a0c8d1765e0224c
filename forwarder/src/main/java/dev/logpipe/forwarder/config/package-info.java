/** The forwarder's YAML configuration, parsed once into an immutable, validated record tree. */
package dev.logpipe.forwarder.config;

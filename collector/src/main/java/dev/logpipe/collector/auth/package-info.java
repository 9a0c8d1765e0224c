/**
 * Who a collector request is: API key hashes and client certificate subjects mapped to tenants, swappable while the
 * collector runs.
 */
package dev.logpipe.collector.auth;

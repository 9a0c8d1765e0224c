/**
 * A role's HTTP port ({@code RolePort}), the probes every role answers ({@code Probes}), JSON answers ({@code Answer})
 * and JSON errors ({@code JsonErrorHandler}).
 */
package dev.logpipe.role.http;

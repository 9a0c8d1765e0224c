/**
 * The shell every service role runs in: its command line ({@code RoleCommand}), its process's life and exit codes
 * ({@code RoleLifecycle}) and its bounded stop ({@code StopDeadline}).
 */
package dev.logpipe.role;

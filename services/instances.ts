/**
 * Which instances of the deployment are running. A flow run's runner (and what it holds in memory: a
 * paused request, the secret of a target) lives in the instance that started it; when that instance is
 * gone, the run can only end, and any instance may say so at once.
 */
export interface InstanceLiveness {
  /** This process's instance id, recorded in what it holds. */
  readonly self: string;
  alive(instance: string): Promise<boolean>;
  close(): Promise<void>;
}

/** A log no other process writes to: this process is the only instance there is. */
export const soleInstance = (self: string): InstanceLiveness => ({
  self,
  alive: async (instance) => instance === self,
  close: async () => undefined,
});

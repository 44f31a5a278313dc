import type { ContainerModuleLoadOptions, ResolutionContext, ServiceIdentifier } from 'inversify';

/** Resolves one dependency of the thing being built. */
export type Resolve = <T>(id: ServiceIdentifier<T>) => T;

/** Binds an identifier to what a factory builds from its dependencies, once per container. */
export type BindFactory = <T>(id: ServiceIdentifier<T>, build: (get: Resolve) => T) => void;

/**
 * Application classes carry no decorators (the layer rule keeps inversify out of them), so each is bound
 * to a factory that names its constructor's arguments: explicit, and checked by the compiler.
 */
export function factoryBinder({ bind }: Pick<ContainerModuleLoadOptions, 'bind'>): BindFactory {
  return (id, build) => {
    bind(id)
      .toDynamicValue((context: ResolutionContext) => build((dependency) => context.get(dependency)))
      .inSingletonScope();
  };
}

import { z } from 'zod';
import { getModelService } from '@/server/runtime';
import { adminProcedure, createTRPCRouter } from '../trpc';

const optionalText = (max: number) => z.string().max(max).nullable().optional();

/** Model endpoints: only an admin sets them (signed in; tokens cannot). The key is never sent back. */
export const modelsRouter = createTRPCRouter({
  get: adminProcedure.query(() => getModelService().adminView()),

  /** Given fields replace the stored ones; null or "" clears one; an omitted apiKey keeps the key. */
  set: adminProcedure
    .input(
      z
        .object({
          baseUrl: z
            .string()
            .max(2_000)
            .refine((value) => value.trim() === '' || /^https?:\/\//i.test(value.trim()), 'must be an http:// or https:// URL')
            .nullable()
            .optional(),
          apiKey: optionalText(4_000),
          model: optionalText(200),
          titleModel: optionalText(200),
          detectLocal: z.boolean().optional(),
        })
        .strict(),
    )
    .mutation(({ input }) => getModelService().update(input)),

  /** `GET <baseUrl>/models` of the URL typed (or the one in use): `{ok, models}` or `{ok: false, error}` in words. */
  serverModels: adminProcedure
    .input(
      z
        .object({
          baseUrl: z
            .string()
            .max(2_000)
            .refine((value) => /^https?:\/\//i.test(value.trim()), 'must be an http:// or https:// URL')
            .optional(),
        })
        .strict()
        .optional(),
    )
    .query(({ input }) => getModelService().serverModels(input?.baseUrl)),

  /** Local OpenAI-compatible servers on 127.0.0.1 (Ollama, LM Studio, llama.cpp, vLLM) and their models. */
  detect: adminProcedure.mutation(async () => ({ servers: await getModelService().detect(true) })),
});

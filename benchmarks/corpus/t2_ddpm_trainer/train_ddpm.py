# Our own driver for lucidrains/denoising-diffusion-pytorch: its library Trainer (unmodified) on a folder
# of generated images, sized for a 2-core CPU (a small Unet, 32x32 images, batches of 16 accumulated
# twice, 100 updates, no mixed precision and no FID, which would download Inception weights).
from denoising_diffusion_pytorch import GaussianDiffusion, Trainer, Unet

if __name__ == "__main__":
    network = Unet(dim=16, dim_mults=(1, 2, 4, 8), flash_attn=True)
    process = GaussianDiffusion(network, image_size=32, timesteps=1000, sampling_timesteps=250)
    Trainer(process, "images", train_batch_size=16, train_lr=8e-5, train_num_steps=100,
            gradient_accumulate_every=2, ema_decay=0.995, amp=False, calculate_fid=False).train()
